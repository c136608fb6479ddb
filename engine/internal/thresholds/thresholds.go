// Package thresholds reads and judges k6's options.thresholds, as k6 documents
// them: per metric (or sub-metric, "name{tag:value}"), expressions
// "<aggregation> <operator> <value>" whose aggregations depend on the metric's
// type (counter: count, rate; gauge: value; rate: rate; trend: avg, min, max,
// med, p(N)), in the short form (a string) or the long form ({threshold,
// abortOnFail, delayAbortEval}). A threshold holds when its expression is true.
package thresholds

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

// ErrInvalid wraps every error of Parse: the engine stops before the test with k6's exit code 104.
var ErrInvalid = errors.New("invalid thresholds")

// Source is what thresholds are judged on (*summary.Aggregator): the aggregations of a metric or
// sub-metric key. For counters it gives count and rate (per second over elapsed), for gauges value,
// min and max, for rates rate, passes and fails, for trends the stats asked for ("avg", "min", "max",
// "med", "count", "p(95)"...). ok is false while the key has no sample.
type Source interface {
	Values(key string, elapsed time.Duration, stats []string) (values map[string]float64, ok bool)
}

type operator string

const (
	opLT  operator = "<"
	opLE  operator = "<="
	opGT  operator = ">"
	opGE  operator = ">="
	opEQ  operator = "=="
	opEQ3 operator = "==="
	opNE  operator = "!="
)

func (o operator) holds(a, b float64) bool {
	switch o {
	case opLT:
		return a < b
	case opLE:
		return a <= b
	case opGT:
		return a > b
	case opGE:
		return a >= b
	case opEQ, opEQ3:
		return a == b
	default:
		return a != b
	}
}

// Threshold is one expression on one metric key.
type Threshold struct {
	Source      string // as written
	Aggregation string // "p(95)", "rate", ...
	Operator    string
	Value       float64
	AbortOnFail bool
	DelayAbort  time.Duration

	op       operator
	ok       bool
	aborted  bool // crossed and stopped the test: stays failed
	observed float64
}

// Metric is the thresholds of one metric key ("http_req_duration", "http_req_duration{name:home}").
type Metric struct {
	Key    string
	Name   string
	Tags   [][2]string // the sub-metric's tag filter, as written
	Type   metrics.Type
	Thresh []*Threshold
	stats  []string // the aggregations Thresh need
}

// Set is a test's thresholds.
type Set struct {
	mu      sync.Mutex
	metrics []*Metric // sorted by key
}

// Parse reads options.thresholds ("null" or absent: no thresholds). Custom metrics are registered by
// the init code, so Parse runs after it; a threshold on a metric the registry does not know is an error.
func Parse(raw json.RawMessage, reg *metrics.Registry) (*Set, error) {
	s := &Set{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var byKey map[string]json.RawMessage
	if err := json.Unmarshal(raw, &byKey); err != nil {
		return nil, fmt.Errorf("%w: options.thresholds must be an object of metric names to arrays of expressions: %v", ErrInvalid, err)
	}
	for _, key := range slices.Sorted(maps.Keys(byKey)) {
		m, err := parseMetric(key, byKey[key], reg)
		if err != nil {
			return nil, err
		}
		s.metrics = append(s.metrics, m)
	}
	return s, nil
}

func parseMetric(key string, raw json.RawMessage, reg *metrics.Registry) (*Metric, error) {
	name, tags, err := ParseKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w: threshold on %q: %v", ErrInvalid, key, err)
	}
	metric := reg.Lookup(name)
	if metric == nil {
		return nil, fmt.Errorf("%w: threshold on %q: there is no metric named %q (a script's own metric must be made in the init code)", ErrInvalid, key, name)
	}
	m := &Metric{Key: strings.TrimSpace(key), Name: name, Tags: tags, Type: metric.Type}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil {
			return nil, fmt.Errorf("%w: thresholds of %q must be an array of expressions or {threshold, abortOnFail, delayAbortEval} objects", ErrInvalid, key)
		}
		items = []json.RawMessage{raw}
	}
	for _, item := range items {
		t, err := parseItem(item, metric.Type)
		if err != nil {
			return nil, fmt.Errorf("%w: threshold on %q: %v", ErrInvalid, key, err)
		}
		m.Thresh = append(m.Thresh, t)
		if !slices.Contains(m.stats, t.Aggregation) {
			m.stats = append(m.stats, t.Aggregation)
		}
	}
	return m, nil
}

func parseItem(item json.RawMessage, t metrics.Type) (*Threshold, error) {
	var expr string
	if json.Unmarshal(item, &expr) == nil {
		return parseExpression(expr, t)
	}
	var long struct {
		Threshold      *string         `json:"threshold"`
		AbortOnFail    bool            `json:"abortOnFail"`
		DelayAbortEval json.RawMessage `json:"delayAbortEval"`
	}
	if err := json.Unmarshal(item, &long); err != nil || long.Threshold == nil {
		return nil, fmt.Errorf("%s is neither an expression nor an object with a \"threshold\" expression", item)
	}
	th, err := parseExpression(*long.Threshold, t)
	if err != nil {
		return nil, err
	}
	th.AbortOnFail = long.AbortOnFail
	if d := bytes.TrimSpace(long.DelayAbortEval); len(d) > 0 && string(d) != "null" {
		if th.DelayAbort, err = parseDelay(d); err != nil {
			return nil, fmt.Errorf("%q: delayAbortEval: %v", *long.Threshold, err)
		}
	}
	return th, nil
}

// parseDelay reads a duration string ("10s", "1m30s") or a number of milliseconds.
func parseDelay(raw json.RawMessage) (time.Duration, error) {
	var ms float64
	if json.Unmarshal(raw, &ms) == nil {
		return time.Duration(ms * float64(time.Millisecond)), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("%s is not a duration", raw)
	}
	if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return time.Duration(n * float64(time.Millisecond)), nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration like \"10s\" or \"1m30s\"", s)
	}
	return d, nil
}

var expression = regexp.MustCompile(`^\s*([a-zA-Z]+)\s*(?:\(\s*([^)]*?)\s*\))?\s*(===|==|!=|>=|<=|>|<)\s*(\S+)\s*$`)

// aggregations lists what a threshold may aggregate per metric type (p(N) aside, for trends).
var aggregations = map[metrics.Type][]string{
	metrics.Counter: {"count", "rate"},
	metrics.Gauge:   {"value"},
	metrics.Rate:    {"rate"},
	metrics.Trend:   {"avg", "min", "max", "med", "p(N)"},
}

func parseExpression(src string, t metrics.Type) (*Threshold, error) {
	m := expression.FindStringSubmatch(src)
	if m == nil {
		return nil, fmt.Errorf("%q is not an expression of the form \"<aggregation> <operator> <value>\" (e.g. \"p(95)<500\", \"rate<0.01\"; operators > >= <= < == === !=)", src)
	}
	agg, arg, op, value := m[1], m[2], operator(m[3]), m[4]
	if agg == "p" && strings.Contains(src, "(") {
		n, err := strconv.ParseFloat(arg, 64)
		if err != nil || n < 0 || n > 100 {
			return nil, fmt.Errorf("%q: the percentile of p(N) must be a number from 0 to 100, not %q", src, arg)
		}
		agg = "p(" + strconv.FormatFloat(n, 'f', -1, 64) + ")"
	} else if m[2] != "" || strings.Contains(src, "(") {
		return nil, fmt.Errorf("%q: only p(N) takes an argument", src)
	}
	allowed := aggregations[t]
	if !slices.Contains(allowed, agg) && !(t == metrics.Trend && strings.HasPrefix(agg, "p(")) {
		return nil, fmt.Errorf("%q: %q is not an aggregation of a %s metric (it has %s)", src, agg, t, strings.Join(allowed, ", "))
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return nil, fmt.Errorf("%q: %q is not a number", src, value)
	}
	return &Threshold{Source: src, Aggregation: agg, Operator: string(op), Value: v, op: op, ok: true}, nil
}

// ParseKey splits a metric key into its name and sub-metric tag filter: "http_req_duration{name:home,
// expected_response:true}" -> "http_req_duration", [[name home] [expected_response true]]. A tag's
// value is what follows the first colon ("group:::a" is the group "::a"); quotes around it are dropped.
func ParseKey(key string) (name string, tags [][2]string, err error) {
	key = strings.TrimSpace(key)
	open := strings.IndexByte(key, '{')
	if open < 0 {
		if key == "" {
			return "", nil, errors.New("empty metric name")
		}
		return key, nil, nil
	}
	name = strings.TrimSpace(key[:open])
	if name == "" || !strings.HasSuffix(key, "}") {
		return "", nil, fmt.Errorf("%q is not of the form name{tag:value,...}", key)
	}
	inner := strings.TrimSpace(key[open+1 : len(key)-1])
	if inner == "" {
		return "", nil, fmt.Errorf("%q has an empty tag filter", key)
	}
	for _, pair := range strings.Split(inner, ",") {
		k, v, found := strings.Cut(pair, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !found || k == "" {
			return "", nil, fmt.Errorf("%q: %q is not a tag:value pair", key, strings.TrimSpace(pair))
		}
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		tags = append(tags, [2]string{k, v})
	}
	return name, tags, nil
}

// Submetrics lists the sub-metric keys the thresholds are on (the aggregator must follow them).
func (s *Set) Submetrics() []string {
	var out []string
	for _, m := range s.metrics {
		if len(m.Tags) > 0 {
			out = append(out, m.Key)
		}
	}
	return out
}

// Metrics lists the thresholds by metric key, sorted by key.
func (s *Set) Metrics() []*Metric { return s.metrics }

// Evaluate judges every threshold on what src holds after elapsed of the test. While the test runs
// (final false) a key without samples is not judged yet; at the end it is, on zero values. abort is
// true when a threshold with abortOnFail is crossed, once its delayAbortEval has passed.
func (s *Set) Evaluate(src Source, elapsed time.Duration, final bool) (abort bool, reason string) {
	if s == nil {
		return false, ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var crossed []string
	for _, m := range s.metrics {
		values, ok := src.Values(m.Key, elapsed, m.stats)
		if !ok && !final {
			continue
		}
		for _, t := range m.Thresh {
			t.observed = values[t.Aggregation] // a missing value (no samples) is 0
			t.ok = t.op.holds(t.observed, t.Value) && !t.aborted
			if !t.ok && t.AbortOnFail && !final && elapsed >= t.DelayAbort {
				t.aborted = true
				crossed = append(crossed, fmt.Sprintf("'%s' on %s (%s=%s)", t.Source, m.Key, t.Aggregation, strconv.FormatFloat(t.observed, 'g', 6, 64)))
			}
		}
	}
	if len(crossed) == 0 {
		return false, ""
	}
	return true, "thresholds with abortOnFail were crossed: " + strings.Join(crossed, ", ")
}

// AnyFailed tells whether a threshold did not hold at its last evaluation (or stopped the test).
func (s *Set) AnyFailed() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.metrics {
		for _, t := range m.Thresh {
			if !t.ok {
				return true
			}
		}
	}
	return false
}

// Results gives, per metric key, whether each expression held at the last evaluation.
func (s *Set) Results() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	if s == nil {
		return out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.metrics {
		r := make(map[string]bool, len(m.Thresh))
		for _, t := range m.Thresh {
			r[t.Source] = t.ok
		}
		out[m.Key] = r
	}
	return out
}

// Observed gives, per metric key and expression, the value the last evaluation compared.
func (s *Set) Observed() map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	if s == nil {
		return out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.metrics {
		r := make(map[string]float64, len(m.Thresh))
		for _, t := range m.Thresh {
			r[t.Source] = t.observed
		}
		out[m.Key] = r
	}
	return out
}

// Sources gives the expressions per metric key, as written.
func (s *Set) Sources() map[string][]string {
	out := map[string][]string{}
	if s == nil {
		return out
	}
	for _, m := range s.metrics {
		src := make([]string, len(m.Thresh))
		for i, t := range m.Thresh {
			src[i] = t.Source
		}
		out[m.Key] = src
	}
	return out
}
