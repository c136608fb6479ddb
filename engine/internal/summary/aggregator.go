// Package summary aggregates every sample of a test for k6's end-of-test
// summary (the handleSummary() data, the --summary-export file, the text
// printed at the end) and for thresholds: per metric and per sub-metric, counters
// sum, gauges keep their last value (and min and max), rates count non-zero
// samples, trends keep their values for exact percentiles.
package summary

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/output/histogram"
	"github.com/opsbench/opsbench/engine/internal/thresholds"
)

// ExactValuesCap is how many values a trend keeps for exact percentiles. Beyond it (a little beyond:
// shards report what they keep in chunks) a trend's percentiles come from a logarithmic histogram,
// within histogram.Alpha (0.8%) of the exact value, so memory stays bounded in long tests.
var ExactValuesCap int64 = 100_000

// keptChunk: a shard adds what it keeps to a trend's shared count every keptChunk values, so the hot
// path touches no shared cache line per sample.
const keptChunk = 1024

// DefaultSubmetrics are the sub-metrics k6 always shows.
var DefaultSubmetrics = []string{"http_req_duration{expected_response:true}"}

// Aggregator is a metrics.Sink. Samples go to one of several shards (each with its own lock and its
// own per-metric state), so VUs on many goroutines rarely wait on each other; reading merges the shards.
type Aggregator struct {
	reg    *metrics.Registry
	subs   map[string][]*submetric // by metric name; fixed after NewAggregator
	subKey map[string]*submetric
	shards []shard

	storesMu sync.Mutex
	stores   map[string]*trendStore // by metric or sub-metric key

	// snapMu serialises readers (they move shards' pending trend values into the stores).
	snapMu  sync.Mutex
	scratch []float64
}

type submetric struct {
	key    string
	name   string
	filter [][2]string
}

func (s *submetric) matches(tags *metrics.TagSet) bool {
	for _, kv := range s.filter {
		if v, ok := tags.Get(kv[0]); !ok || v != kv[1] {
			return false
		}
	}
	return true
}

type shard struct {
	mu       sync.Mutex
	byMetric map[*metrics.Metric]*entry
	checks   map[checkKey]*checkCount
	groups   map[string]struct{}
	_        [64]byte // keeps shards' locks off each other's cache lines
}

type entry struct {
	metric *metrics.Metric
	main   agg
	subs   []subAgg
}

type subAgg struct {
	sub *submetric
	agg agg
}

type checkKey struct{ group, name string }

type checkCount struct {
	passes, fails int64
	seq           int64
}

// agg is one metric's (or sub-metric's) state in one shard.
type agg struct {
	count    int64
	sum      float64
	min, max float64
	nonZero  int64
	last     float64
	lastAt   int64
	// trends only
	store   *trendStore
	pending []float64 // values kept since the last read
	unsent  int       // values kept but not yet added to store.kept
	hist    map[int32]int64
}

// trendStore is a trend's values merged from the shards, sorted, or once the cap is passed, a histogram.
type trendStore struct {
	kept   atomic.Int64
	full   atomic.Bool
	sorted []float64
	hist   map[int32]int64 // non-nil once the trend passed the cap
}

var checkSeq atomic.Int64

// NewAggregator follows every metric of reg and the given sub-metrics ("http_req_duration{expected_response:true}",
// "checks{check:status is 200}"), plus DefaultSubmetrics. Keys that do not parse are ignored (thresholds.Parse
// reports them).
func NewAggregator(reg *metrics.Registry, submetrics []string) *Aggregator {
	n := max(4, 2*runtime.GOMAXPROCS(0))
	a := &Aggregator{
		reg: reg, subs: map[string][]*submetric{}, subKey: map[string]*submetric{},
		shards: make([]shard, n), stores: map[string]*trendStore{},
	}
	for i := range a.shards {
		a.shards[i].byMetric = map[*metrics.Metric]*entry{}
		a.shards[i].checks = map[checkKey]*checkCount{}
		a.shards[i].groups = map[string]struct{}{}
	}
	for _, key := range append(slices.Clone(DefaultSubmetrics), submetrics...) {
		name, filter, err := thresholds.ParseKey(key)
		if err != nil || len(filter) == 0 || a.subKey[key] != nil {
			continue
		}
		s := &submetric{key: key, name: name, filter: filter}
		a.subKey[key] = s
		a.subs[name] = append(a.subs[name], s)
	}
	return a
}

// AddSamples aggregates a batch in one shard: the first free one from a random start.
func (a *Aggregator) AddSamples(samples []metrics.Sample) {
	if len(samples) == 0 {
		return
	}
	start := int(rand.Uint32() % uint32(len(a.shards)))
	sh := &a.shards[start]
	locked := false
	for i := range a.shards {
		if c := &a.shards[(start+i)%len(a.shards)]; c.mu.TryLock() {
			sh, locked = c, true
			break
		}
	}
	if !locked {
		sh.mu.Lock()
	}
	defer sh.mu.Unlock()
	var e *entry
	for i := range samples {
		s := &samples[i]
		if e == nil || e.metric != s.Metric {
			if e = sh.byMetric[s.Metric]; e == nil {
				e = a.newEntry(s.Metric)
				sh.byMetric[s.Metric] = e
			}
		}
		t := s.Metric.Type
		e.main.add(t, s)
		for j := range e.subs {
			if e.subs[j].sub.matches(s.Tags) {
				e.subs[j].agg.add(t, s)
			}
		}
		switch s.Metric.Name {
		case "checks":
			sh.addCheck(s)
		case "group_duration":
			if g, ok := s.Tags.Get("group"); ok && g != "" {
				sh.groups[g] = struct{}{}
			}
		}
	}
}

func (sh *shard) addCheck(s *metrics.Sample) {
	name, _ := s.Tags.Get("check")
	group, _ := s.Tags.Get("group")
	k := checkKey{group, name}
	c := sh.checks[k]
	if c == nil {
		c = &checkCount{seq: checkSeq.Add(1)}
		sh.checks[k] = c
	}
	if s.Value != 0 {
		c.passes++
	} else {
		c.fails++
	}
}

func (a *Aggregator) newEntry(m *metrics.Metric) *entry {
	e := &entry{metric: m, main: newAgg(a.trendStore(m.Type, m.Name))}
	for _, s := range a.subs[m.Name] {
		e.subs = append(e.subs, subAgg{sub: s, agg: newAgg(a.trendStore(m.Type, s.key))})
	}
	return e
}

func (a *Aggregator) trendStore(t metrics.Type, key string) *trendStore {
	if t != metrics.Trend {
		return nil
	}
	a.storesMu.Lock()
	defer a.storesMu.Unlock()
	st := a.stores[key]
	if st == nil {
		st = &trendStore{}
		a.stores[key] = st
	}
	return st
}

func newAgg(store *trendStore) agg {
	return agg{min: math.Inf(1), max: math.Inf(-1), lastAt: math.MinInt64, store: store}
}

func (g *agg) add(t metrics.Type, s *metrics.Sample) {
	v := s.Value
	g.count++
	g.sum += v
	if v < g.min {
		g.min = v
	}
	if v > g.max {
		g.max = v
	}
	switch t {
	case metrics.Rate:
		if v != 0 {
			g.nonZero++
		}
	case metrics.Gauge:
		if at := s.Time.UnixNano(); at >= g.lastAt {
			g.last, g.lastAt = v, at
		}
	case metrics.Trend:
		if !g.store.full.Load() {
			g.pending = append(g.pending, v)
			if g.unsent++; g.unsent == keptChunk {
				g.unsent = 0
				if g.store.kept.Add(keptChunk) >= ExactValuesCap {
					g.store.full.Store(true)
				}
			}
			return
		}
		if g.hist == nil {
			g.hist = map[int32]int64{}
		}
		g.hist[histogram.Index(v)]++
	}
}

// merge adds another shard's state (counts, sums, extremes, last value) into g; trend values are not moved.
func (g *agg) merge(o *agg) {
	g.count += o.count
	g.sum += o.sum
	g.min = math.Min(g.min, o.min)
	g.max = math.Max(g.max, o.max)
	g.nonZero += o.nonZero
	if o.lastAt >= g.lastAt && o.count > 0 {
		g.last, g.lastAt = o.last, o.lastAt
	}
}

// snapshot is a key's merged state: for trends, the store holds every value seen so far.
type snapshot struct {
	metric *metrics.Metric
	agg    agg
	store  *trendStore
}

// read merges the shards' state of a metric or sub-metric key; ok is false when the key is unknown.
// Callers hold snapMu.
func (a *Aggregator) read(key string) (snap snapshot, ok bool) {
	name, sub := key, a.subKey[key]
	if sub != nil {
		name = sub.name
	}
	m := a.reg.Lookup(name)
	if m == nil {
		return snap, false
	}
	snap = snapshot{metric: m, agg: newAgg(nil)}
	a.scratch = a.scratch[:0]
	var moved map[int32]int64
	for i := range a.shards {
		sh := &a.shards[i]
		sh.mu.Lock()
		if e := sh.byMetric[m]; e != nil {
			g := &e.main
			if sub != nil {
				g = nil
				for j := range e.subs {
					if e.subs[j].sub == sub {
						g = &e.subs[j].agg
					}
				}
			}
			if g != nil {
				snap.agg.merge(g)
				a.scratch = append(a.scratch, g.pending...)
				g.pending = g.pending[:0]
				if len(g.hist) > 0 {
					if moved == nil {
						moved = map[int32]int64{}
					}
					for b, c := range g.hist {
						moved[b] += c
					}
					clear(g.hist)
				}
			}
		}
		sh.mu.Unlock()
	}
	if m.Type == metrics.Trend {
		snap.store = a.trendStore(m.Type, key)
		snap.store.absorb(a.scratch, moved)
	}
	return snap, true
}

// absorb merges newly read values into the store: sorted while every value was kept, else a histogram.
func (st *trendStore) absorb(values []float64, hist map[int32]int64) {
	if st.hist == nil && len(hist) == 0 {
		slices.Sort(values)
		st.sorted = mergeSorted(st.sorted, values)
		return
	}
	if st.hist == nil {
		st.hist = make(map[int32]int64, 1024)
		for _, v := range st.sorted {
			st.hist[histogram.Index(v)]++
		}
		st.sorted = nil
	}
	for _, v := range values {
		st.hist[histogram.Index(v)]++
	}
	for b, c := range hist {
		st.hist[b] += c
	}
}

// mergeSorted merges sorted b into sorted a, in place from the end (a grows once, nothing else is allocated).
func mergeSorted(a, b []float64) []float64 {
	if len(b) == 0 {
		return a
	}
	i, j := len(a)-1, len(b)-1
	a = slices.Grow(a, len(b))[:len(a)+len(b)]
	for k := len(a) - 1; j >= 0; k-- {
		if i >= 0 && a[i] > b[j] {
			a[k] = a[i]
			i--
		} else {
			a[k] = b[j]
			j--
		}
	}
	return a
}

// percentile is p (0..100) of the trend: with every value kept, linear interpolation between the
// closest ranks (k6 does not document its definition; this is the common one, Excel's PERCENTILE.INC);
// past the cap, the histogram bucket holding that rank, clamped to the trend's min and max.
func (st *trendStore) percentile(p float64, count int64, minV, maxV float64) float64 {
	if count == 0 {
		return 0
	}
	if st.hist == nil {
		n := len(st.sorted)
		if n == 0 {
			return 0
		}
		pos := p / 100 * float64(n-1)
		lo := int(math.Floor(pos))
		if lo >= n-1 {
			return st.sorted[n-1]
		}
		return st.sorted[lo] + (st.sorted[lo+1]-st.sorted[lo])*(pos-float64(lo))
	}
	if p <= 0 {
		return minV
	}
	if p >= 100 {
		return maxV
	}
	buckets := make([]int32, 0, len(st.hist))
	var total int64
	for b, c := range st.hist {
		buckets = append(buckets, b)
		total += c
	}
	slices.Sort(buckets)
	rank := int64(math.Floor(p / 100 * float64(total-1)))
	var seen int64
	for _, b := range buckets {
		if seen += st.hist[b]; seen > rank {
			return min(maxV, max(minV, histogram.Value(b)))
		}
	}
	return maxV
}

// Exact tells whether a trend's percentiles are exact (every value kept).
func (a *Aggregator) Exact(key string) bool {
	a.snapMu.Lock()
	defer a.snapMu.Unlock()
	snap, ok := a.read(key)
	return !ok || snap.store == nil || snap.store.hist == nil
}

// Values gives the aggregations of a metric or sub-metric key (see thresholds.Source): counters
// count and rate (per second over elapsed), gauges value, min and max, rates rate, passes and fails,
// trends the stats asked for (avg, min, max, med, count, p(N); DefaultTrendStats when none).
// ok is false when the key has no sample (or is not followed).
func (a *Aggregator) Values(key string, elapsed time.Duration, stats []string) (map[string]float64, bool) {
	a.snapMu.Lock()
	defer a.snapMu.Unlock()
	snap, ok := a.read(key)
	if !ok {
		return map[string]float64{}, false
	}
	return snap.values(elapsed, stats), snap.agg.count > 0
}

func (s *snapshot) values(elapsed time.Duration, stats []string) map[string]float64 {
	g := &s.agg
	minV, maxV := g.min, g.max
	if g.count == 0 {
		minV, maxV = 0, 0
	}
	switch s.metric.Type {
	case metrics.Counter:
		rate := 0.0
		if elapsed > 0 {
			rate = g.sum / elapsed.Seconds()
		}
		return map[string]float64{"count": g.sum, "rate": rate}
	case metrics.Gauge:
		return map[string]float64{"value": g.last, "min": minV, "max": maxV}
	case metrics.Rate:
		rate := 0.0
		if g.count > 0 {
			rate = float64(g.nonZero) / float64(g.count)
		}
		return map[string]float64{"rate": rate, "passes": float64(g.nonZero), "fails": float64(g.count - g.nonZero)}
	}
	if len(stats) == 0 {
		stats = DefaultTrendStats
	}
	out := make(map[string]float64, len(stats))
	for _, stat := range stats {
		switch stat {
		case "avg":
			out[stat] = 0
			if g.count > 0 {
				out[stat] = g.sum / float64(g.count)
			}
		case "min":
			out[stat] = minV
		case "max":
			out[stat] = maxV
		case "count":
			out[stat] = float64(g.count)
		case "med":
			out[stat] = s.store.percentile(50, g.count, minV, maxV)
		default:
			if p, ok := percentileOf(stat); ok {
				out[stat] = s.store.percentile(p, g.count, minV, maxV)
			}
		}
	}
	return out
}

// seen lists the metrics with samples, and the checks and groups, merged from the shards.
func (a *Aggregator) seen() (seen map[*metrics.Metric]bool, subs map[string]bool, checks []checkResult, groups []string) {
	seen, subs = map[*metrics.Metric]bool{}, map[string]bool{}
	merged := map[checkKey]*checkCount{}
	groupSet := map[string]struct{}{}
	for i := range a.shards {
		sh := &a.shards[i]
		sh.mu.Lock()
		for m, e := range sh.byMetric {
			if e.main.count > 0 {
				seen[m] = true
			}
			for _, s := range e.subs {
				if s.agg.count > 0 {
					subs[s.sub.key] = true
				}
			}
		}
		for k, c := range sh.checks {
			t := merged[k]
			if t == nil {
				t = &checkCount{seq: c.seq}
				merged[k] = t
			}
			t.passes += c.passes
			t.fails += c.fails
			t.seq = min(t.seq, c.seq)
		}
		for g := range sh.groups {
			groupSet[g] = struct{}{}
		}
		sh.mu.Unlock()
	}
	for k, c := range merged {
		checks = append(checks, checkResult{group: k.group, name: k.name, passes: c.passes, fails: c.fails, seq: c.seq})
		groupSet[k.group] = struct{}{}
	}
	slices.SortFunc(checks, func(x, y checkResult) int { return cmp.Compare(x.seq, y.seq) })
	for g := range groupSet {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	return seen, subs, checks, groups
}

type checkResult struct {
	group, name   string
	passes, fails int64
	seq           int64
}
