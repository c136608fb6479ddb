// Package metrics holds the engine's measurements as k6's JavaScript API
// documents them: four metric types (Counter, Gauge, Rate, Trend), a value type
// (time, data or plain), samples with tags, and a registry of metrics by name.
// Everything that measures (the HTTP client, executors, a script's own metrics)
// hands samples to a Sink; the sinks (the summary, thresholds, outputs) are
// elsewhere.
package metrics

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

type Type int

const (
	Counter Type = iota
	Gauge
	Rate
	Trend
)

func (t Type) String() string {
	switch t {
	case Counter:
		return "counter"
	case Gauge:
		return "gauge"
	case Rate:
		return "rate"
	default:
		return "trend"
	}
}

// ValueType says what a metric's values are: plain numbers, times (ms) or data (bytes).
type ValueType int

const (
	Default ValueType = iota
	Time
	Data
)

func (v ValueType) String() string {
	switch v {
	case Time:
		return "time"
	case Data:
		return "data"
	default:
		return "default"
	}
}

type Metric struct {
	Name     string
	Type     Type
	Contains ValueType
}

// TagSet is an immutable set of tags; build one with NewTags or With. Samples
// share TagSets, so a hot path builds them once per request name, not per sample.
type TagSet struct {
	keys   []string // sorted
	values []string
}

func NewTags(m map[string]string) *TagSet {
	t := &TagSet{keys: slices.Sorted(maps.Keys(m))}
	t.values = make([]string, len(t.keys))
	for i, k := range t.keys {
		t.values[i] = m[k]
	}
	return t
}

// Get returns a tag's value and whether it is set.
func (t *TagSet) Get(key string) (string, bool) {
	if t == nil {
		return "", false
	}
	i, ok := slices.BinarySearch(t.keys, key)
	if !ok {
		return "", false
	}
	return t.values[i], true
}

// Map returns a copy of the tags.
func (t *TagSet) Map() map[string]string {
	m := make(map[string]string, t.Len())
	if t != nil {
		for i, k := range t.keys {
			m[k] = t.values[i]
		}
	}
	return m
}

func (t *TagSet) Len() int {
	if t == nil {
		return 0
	}
	return len(t.keys)
}

// With returns a new set with the given tags added or replaced.
func (t *TagSet) With(kv map[string]string) *TagSet {
	m := t.Map()
	maps.Copy(m, kv)
	return NewTags(m)
}

// Each calls f for every tag in key order.
func (t *TagSet) Each(f func(k, v string)) {
	if t == nil {
		return
	}
	for i, k := range t.keys {
		f(k, t.values[i])
	}
}

func (t *TagSet) String() string {
	var b strings.Builder
	t.Each(func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + ":" + v)
	})
	return b.String()
}

type Sample struct {
	Metric *Metric
	Time   time.Time
	Value  float64
	Tags   *TagSet
}

// Sink receives samples; implementations must be safe for concurrent use, and must not keep the
// slice after AddSamples returns (emitters reuse it for the next request: no allocation per request).
type Sink interface {
	AddSamples(samples []Sample)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func([]Sample)

func (f SinkFunc) AddSamples(s []Sample) { f(s) }

// Fanout sends every batch to each sink in turn.
type Fanout []Sink

func (f Fanout) AddSamples(s []Sample) {
	for _, sink := range f {
		sink.AddSamples(s)
	}
}

// k6 documents metric names as at most 128 ASCII letters, digits and underscores, not starting with a digit.
var validName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,127}$`)

// Registry knows every metric of a test by name; a name has one type and value type.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*Metric
	// Builtin are k6's documented built-in metrics, registered by NewRegistry.
	Builtin Builtin
}

// Builtin holds k6's built-in metrics.
type Builtin struct {
	VUs, VUsMax                                              *Metric
	Iterations, IterationDuration, DroppedIterations         *Metric
	Checks, GroupDuration, DataSent, DataReceived            *Metric
	HTTPReqs, HTTPReqFailed, HTTPReqDuration                 *Metric
	HTTPReqBlocked, HTTPReqConnecting, HTTPReqTLSHandshaking *Metric
	HTTPReqSending, HTTPReqWaiting, HTTPReqReceiving         *Metric
}

func NewRegistry() *Registry {
	r := &Registry{byName: map[string]*Metric{}}
	must := func(name string, t Type, v ValueType) *Metric {
		m, err := r.Get(name, t, v)
		if err != nil {
			panic(err)
		}
		return m
	}
	r.Builtin = Builtin{
		VUs:                   must("vus", Gauge, Default),
		VUsMax:                must("vus_max", Gauge, Default),
		Iterations:            must("iterations", Counter, Default),
		IterationDuration:     must("iteration_duration", Trend, Time),
		DroppedIterations:     must("dropped_iterations", Counter, Default),
		Checks:                must("checks", Rate, Default),
		GroupDuration:         must("group_duration", Trend, Time),
		DataSent:              must("data_sent", Counter, Data),
		DataReceived:          must("data_received", Counter, Data),
		HTTPReqs:              must("http_reqs", Counter, Default),
		HTTPReqFailed:         must("http_req_failed", Rate, Default),
		HTTPReqDuration:       must("http_req_duration", Trend, Time),
		HTTPReqBlocked:        must("http_req_blocked", Trend, Time),
		HTTPReqConnecting:     must("http_req_connecting", Trend, Time),
		HTTPReqTLSHandshaking: must("http_req_tls_handshaking", Trend, Time),
		HTTPReqSending:        must("http_req_sending", Trend, Time),
		HTTPReqWaiting:        must("http_req_waiting", Trend, Time),
		HTTPReqReceiving:      must("http_req_receiving", Trend, Time),
	}
	return r
}

// IsBuiltin tells k6's built-in metrics from a script's own.
func (r *Registry) IsBuiltin(name string) bool {
	switch name {
	case "vus", "vus_max", "iterations", "iteration_duration", "dropped_iterations", "checks", "group_duration",
		"data_sent", "data_received", "http_reqs", "http_req_failed", "http_req_duration", "http_req_blocked",
		"http_req_connecting", "http_req_tls_handshaking", "http_req_sending", "http_req_waiting", "http_req_receiving":
		return true
	}
	return false
}

// Get returns the metric of that name, registering it when new; a name already
// registered with another type or value type is an error (as in k6).
func (r *Registry) Get(name string, t Type, v ValueType) (*Metric, error) {
	r.mu.RLock()
	m := r.byName[name]
	r.mu.RUnlock()
	if m == nil {
		if !validName.MatchString(name) {
			return nil, fmt.Errorf("invalid metric name %q: a name is 1 to 128 ASCII letters, digits or underscores and does not start with a digit", name)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if m = r.byName[name]; m == nil {
			m = &Metric{Name: name, Type: t, Contains: v}
			r.byName[name] = m
			return m, nil
		}
	}
	if m.Type != t || m.Contains != v {
		return nil, fmt.Errorf("metric %q already exists as a %s of %s values", name, m.Type, m.Contains)
	}
	return m, nil
}

// Lookup returns a registered metric or nil.
func (r *Registry) Lookup(name string) *Metric {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byName[name]
}

// All lists the registered metrics by name.
func (r *Registry) All() []*Metric {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := slices.Collect(maps.Values(r.byName))
	slices.SortFunc(out, func(a, b *Metric) int { return strings.Compare(a.Name, b.Name) })
	return out
}
