package output

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/output/histogram"
)

// A script's own metrics and its checks, per second and name: counters sum, rates count non-zero
// samples, trends keep a histogram as http_req_duration does, gauges keep their last value (and min
// and max). Checks are k6's "checks" rate split by the check's name.

// maxSeriesPerKind bounds the names kept per kind, so a script that names checks or metrics after
// request data cannot grow the output without limit; further names are counted under otherName.
// maxNameLength bounds each name (in bytes, so never more characters): every line carries its name, every
// second, so a 50 KB check name would be 50 KB a second stored. Longer ones are counted under otherName,
// for requests under otherHTTPName. The worker and the ingest endpoint hold names to the same length
// (MAX_SERIES_NAME_LENGTH, packages/core k6-output-format.ts).
const (
	maxSeriesPerKind = 500
	maxNameLength    = 256
	otherName        = "(other)"
	otherHTTPName    = "other"
)

// k6's built-in metrics and the families of its protocol modules; everything else is a script's own.
var builtinMetrics = map[string]bool{
	"vus": true, "vus_max": true, "iterations": true, "iteration_duration": true, "dropped_iterations": true,
	"checks": true, "group_duration": true, "data_sent": true, "data_received": true,
	"http_reqs": true, "http_req_failed": true, "http_req_duration": true, "http_req_blocked": true,
	"http_req_connecting": true, "http_req_tls_handshaking": true, "http_req_sending": true,
	"http_req_waiting": true, "http_req_receiving": true,
}

func isBuiltinMetric(name string) bool {
	return builtinMetrics[name] || strings.HasPrefix(name, "ws_") || strings.HasPrefix(name, "grpc_") || strings.HasPrefix(name, "browser_")
}

// unitOf names what a metric's values are: "ms" for times, "B" for data, "" for plain numbers.
func unitOf(m *metrics.Metric) string {
	switch m.Contains {
	case metrics.Time:
		return "ms"
	case metrics.Data:
		return "B"
	default:
		return ""
	}
}

type metricKey struct {
	second int64
	kind   string // "check", "counter", "rate", "trend", "gauge"
	name   string
}

type metricCell struct {
	unit                string
	count, passes       int64
	sum, min, max, last float64
	lastAt              int64 // unix nanoseconds of the sample that set last
	buckets             map[int32]int64
}

func (c *metricCell) merge(o *metricCell) {
	c.count += o.count
	c.passes += o.passes
	c.sum += o.sum
	c.min = math.Min(c.min, o.min)
	c.max = math.Max(c.max, o.max)
	if o.lastAt >= c.lastAt {
		c.last, c.lastAt = o.last, o.lastAt
	}
	for b, n := range o.buckets {
		c.buckets[b] += n
	}
}

// seriesNames admits names per kind up to maxSeriesPerKind, for all shards.
type seriesNames struct {
	mu   sync.Mutex
	seen map[string]map[string]bool // kind -> names admitted
}

func newSeriesNames() *seriesNames { return &seriesNames{seen: map[string]map[string]bool{}} }

// admit returns the name a series is counted under: its own, or otherName once the kind is full.
func (s *seriesNames) admit(kind, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := s.seen[kind]
	if seen == nil {
		seen = map[string]bool{}
		s.seen[kind] = seen
	}
	if len(name) > maxNameLength {
		return otherName
	}
	if !seen[name] {
		if len(seen) >= maxSeriesPerKind {
			return otherName
		}
		seen[name] = true
	}
	return name
}

type seriesKey struct{ kind, name string }

type metricAggregates struct {
	cells map[metricKey]*metricCell
	names *seriesNames
	// admitted caches this shard's answers of names, so the shared lock is taken once per new name.
	admitted map[seriesKey]string
}

func newMetricAggregates(names *seriesNames) metricAggregates {
	return metricAggregates{cells: map[metricKey]*metricCell{}, names: names, admitted: map[seriesKey]string{}}
}

func (a *metricAggregates) add(sec int64, name, kind, unit string, s *metrics.Sample) {
	sk := seriesKey{kind, name}
	as, ok := a.admitted[sk]
	if !ok {
		as = a.names.admit(kind, name)
		a.admitted[sk] = as
	}
	k := metricKey{sec, kind, as}
	c := a.cells[k]
	if c == nil {
		c = &metricCell{unit: unit, min: math.Inf(1), max: math.Inf(-1), lastAt: math.MinInt64}
		if kind == "trend" {
			c.buckets = map[int32]int64{}
		}
		a.cells[k] = c
	}
	v := s.Value
	c.count++
	c.sum += v
	c.min = math.Min(c.min, v)
	c.max = math.Max(c.max, v)
	if at := s.Time.UnixNano(); at >= c.lastAt {
		c.last, c.lastAt = v, at
	}
	if v != 0 {
		c.passes++
	}
	if c.buckets != nil {
		c.buckets[histogram.Index(v)]++
	}
}

// writeMetricLines writes the cells as "metric" lines, in order of second, kind and name.
func writeMetricLines(cells map[metricKey]*metricCell, write func(any)) {
	order := func(x, y metricKey) int {
		return cmp.Or(cmp.Compare(x.second, y.second), cmp.Compare(x.kind, y.kind), cmp.Compare(x.name, y.name))
	}
	for _, k := range slices.SortedFunc(maps.Keys(cells), order) {
		c := cells[k]
		line := map[string]any{
			"t": "metric", "s": k.second, "kind": k.kind, "name": k.name, "unit": c.unit,
			"n": c.count, "pass": c.passes, "sum": c.sum, "min": c.min, "max": c.max, "last": c.last,
		}
		if c.buckets != nil {
			line["b"] = encodedBuckets(c.buckets)
		}
		write(line)
	}
}
