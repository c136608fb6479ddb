package output

// The opsbench output aggregates samples in process into per-second, per-request-name, per-status-class
// latency histograms and writes one NDJSON line per aggregate, so individual requests are never
// serialised. Checks (per check name) and a script's own metrics are aggregated per second too
// (metriclines.go). packages/core/src/k6/k6-output-format.ts reads it.

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/output/histogram"
)

const (
	// FormatVersion 4 added "metric" lines.
	FormatVersion = 4
	// A second is written once no sample for it can still arrive: VUs hand samples over in batches,
	// at most a few hundred milliseconds late.
	settleSeconds = 2
)

// A cell holds only successful or only failed requests (k6's expected_response), so latency of
// successful responses alone is exact: two lines of one status class may share a second and name,
// one with fail 0 and one with fail = n.
type httpKey struct {
	second int64
	name   string
	class  string
	failed bool
}

type httpCell struct {
	count, failures int64
	sum, min, max   float64
	buckets         map[int32]int64
}

func (c *httpCell) merge(o *httpCell) {
	c.count += o.count
	c.failures += o.failures
	c.sum += o.sum
	c.min = math.Min(c.min, o.min)
	c.max = math.Max(c.max, o.max)
	for b, n := range o.buckets {
		c.buckets[b] += n
	}
}

type loadCell struct {
	vus, vusMax                   float64
	sent, received                float64
	iterations, droppedIterations float64
}

func (l *loadCell) merge(o *loadCell) {
	l.vus = math.Max(l.vus, o.vus)
	l.vusMax = math.Max(l.vusMax, o.vusMax)
	l.sent += o.sent
	l.received += o.received
	l.iterations += o.iterations
	l.droppedIterations += o.droppedIterations
}

// opsbenchShard is one part of the aggregates: a batch of samples goes to one shard, so VUs on many
// goroutines rarely wait on each other; the once-a-second flush merges the shards.
type opsbenchShard struct {
	mu      sync.Mutex
	http    map[httpKey]*httpCell
	load    map[int64]*loadCell
	metrics metricAggregates
	// The engine's clock (unix ns): the first and last sample; the once-a-second VU-count samples do
	// not move last (they go on after the test).
	firstNs, lastNs int64
	_               [64]byte
}

type opsbenchOutput struct {
	closer io.Closer
	w      *bufio.Writer
	// sink is set in HTTP mode: what is flushed is posted once a second.
	sink *httpSink

	shards []opsbenchShard
	names  *seriesNames

	writeMu sync.Mutex // the writer and the flushes
	startNs int64
	stop    chan struct{}
	done    chan struct{}
}

func openOpsbench(dest string, env map[string]string, segment string) (Output, error) {
	if dest == "" {
		return nil, fmt.Errorf("opsbench output needs a destination: opsbench=FILE, fd:N or https://.../api/v1/runs/<id>/ingest")
	}
	o := &opsbenchOutput{names: newSeriesNames()}
	o.shards = make([]opsbenchShard, max(4, 2*runtime.GOMAXPROCS(0)))
	for i := range o.shards {
		sh := &o.shards[i]
		sh.http, sh.load, sh.metrics = map[httpKey]*httpCell{}, map[int64]*loadCell{}, newMetricAggregates(o.names)
	}
	if strings.HasPrefix(dest, "http://") || strings.HasPrefix(dest, "https://") {
		token := env["K6_OPSBENCH_TOKEN"]
		if token == "" {
			token = env["OPSBENCH_INGEST_TOKEN"]
		}
		sink, err := newHTTPSink(dest, token, segment)
		if err != nil {
			return nil, err
		}
		o.closer, o.sink, o.w = sink, sink, bufio.NewWriterSize(sink, 64*1024)
		return o, nil
	}
	var f *os.File
	if rest, ok := strings.CutPrefix(dest, "fd:"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 3 {
			return nil, fmt.Errorf("opsbench output: bad file descriptor %q", dest)
		}
		f = os.NewFile(uintptr(n), "opsbench-output")
	} else {
		var err error
		if f, err = os.Create(dest); err != nil {
			return nil, fmt.Errorf("opsbench output: %w", err)
		}
	}
	o.closer, o.w = f, bufio.NewWriterSize(f, 64*1024)
	return o, nil
}

func (o *opsbenchOutput) Start(p Plan) error {
	o.startNs = time.Now().UnixNano()
	o.writeMu.Lock()
	o.writeLine(map[string]any{"t": "meta", "version": FormatVersion, "alpha": histogram.Alpha, "minValueMs": histogram.MinValue})
	// Before any VU exists: the runner stops a test whose plan is above the run's limits.
	o.writeLine(planLine(p))
	err := o.w.Flush()
	o.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("opsbench output: %w", err)
	}
	o.stop, o.done = make(chan struct{}), make(chan struct{})
	go o.flushEverySecond()
	return nil
}

func (o *opsbenchOutput) flushEverySecond() {
	defer close(o.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-tick.C:
			o.flush(false)
			if o.sink != nil {
				o.sink.send()
			}
		}
	}
}

func (o *opsbenchOutput) Stop() error {
	if o.stop != nil {
		close(o.stop)
		<-o.done
	}
	o.flush(true)
	end := map[string]any{"t": "end", "startMs": float64(o.startNs) / 1e6}
	var firstNs, lastNs int64
	for i := range o.shards {
		sh := &o.shards[i]
		sh.mu.Lock()
		if sh.firstNs != 0 && (firstNs == 0 || sh.firstNs < firstNs) {
			firstNs = sh.firstNs
		}
		lastNs = max(lastNs, sh.lastNs)
		sh.mu.Unlock()
	}
	if lastNs != 0 {
		end["firstMs"] = float64(firstNs) / 1e6
		end["lastMs"] = float64(lastNs) / 1e6
	}
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	o.writeLine(end)
	if err := o.w.Flush(); err != nil {
		_ = o.closer.Close()
		return fmt.Errorf("opsbench output: %w", err)
	}
	return o.closer.Close()
}

// statusClasses are the classes of status codes by first digit, so classifying allocates nothing.
var statusClasses = [10]string{"0xx", "1xx", "2xx", "3xx", "4xx", "5xx", "6xx", "7xx", "8xx", "9xx"}

// statusClass names a response's outcome: "2xx".."5xx", or for requests without a response, from k6's
// error codes: "timeout" (1050), "connection" (DNS and TCP, 1100-1299) or "error" (anything else, e.g. TLS).
func statusClass(tags *metrics.TagSet) string {
	status, _ := tags.Get("status")
	if status != "" && status != "0" && status[0] >= '0' && status[0] <= '9' {
		return statusClasses[status[0]-'0']
	}
	code, _ := tags.Get("error_code")
	n, _ := strconv.Atoi(code)
	switch {
	case n == 1050:
		return "timeout"
	case n >= 1100 && n < 1300:
		return "connection"
	default:
		return "error"
	}
}

// AddSamples aggregates a batch in one shard (the first free one from a random start); it only updates counters.
func (o *opsbenchOutput) AddSamples(samples []metrics.Sample) {
	if len(samples) == 0 {
		return
	}
	start := int(rand.Uint32() % uint32(len(o.shards)))
	sh := &o.shards[start]
	locked := false
	for i := range o.shards {
		if c := &o.shards[(start+i)%len(o.shards)]; c.mu.TryLock() {
			sh, locked = c, true
			break
		}
	}
	if !locked {
		sh.mu.Lock()
	}
	defer sh.mu.Unlock()
	for i := range samples {
		sh.add(&samples[i])
	}
}

func (sh *opsbenchShard) add(s *metrics.Sample) {
	sec := s.Time.Unix()
	name := s.Metric.Name
	at := s.Time.UnixNano()
	if sh.firstNs == 0 || at < sh.firstNs {
		sh.firstNs = at
	}
	if at > sh.lastNs && name != "vus" && name != "vus_max" {
		sh.lastNs = at
	}
	switch name {
	case "http_req_duration":
		reqName, _ := s.Tags.Get("name")
		if len(reqName) > maxNameLength {
			reqName = otherHTTPName
		}
		expected, _ := s.Tags.Get("expected_response")
		k := httpKey{sec, reqName, statusClass(s.Tags), expected == "false"}
		cell := sh.http[k]
		if cell == nil {
			cell = &httpCell{min: math.Inf(1), max: math.Inf(-1), buckets: map[int32]int64{}}
			sh.http[k] = cell
		}
		v := s.Value
		cell.count++
		if k.failed {
			cell.failures++
		}
		cell.sum += v
		cell.min = math.Min(cell.min, v)
		cell.max = math.Max(cell.max, v)
		cell.buckets[histogram.Index(v)]++
	case "vus", "vus_max", "data_sent", "data_received", "iterations", "dropped_iterations":
		l := sh.load[sec]
		if l == nil {
			l = &loadCell{}
			sh.load[sec] = l
		}
		switch name {
		case "vus":
			l.vus = math.Max(l.vus, s.Value)
		case "vus_max":
			l.vusMax = math.Max(l.vusMax, s.Value)
		case "data_sent":
			l.sent += s.Value
		case "data_received":
			l.received += s.Value
		case "iterations":
			l.iterations += s.Value
		case "dropped_iterations":
			l.droppedIterations += s.Value
		}
	case "checks":
		check, _ := s.Tags.Get("check")
		sh.metrics.add(sec, check, "check", "", s)
	default:
		if !isBuiltinMetric(name) {
			sh.metrics.add(sec, name, s.Metric.Type.String(), unitOf(s.Metric), s)
		}
	}
}

// takeDue removes from cells those of seconds up to cutoff (all of them when all is set) and returns them.
func takeDue[K comparable, V any](cells map[K]V, all bool, cutoff int64, second func(K) int64) map[K]V {
	var out map[K]V
	for k, v := range cells {
		if all || second(k) <= cutoff {
			if out == nil {
				out = map[K]V{}
			}
			out[k] = v
			delete(cells, k)
		}
	}
	return out
}

// encodedBuckets is a histogram's buckets as a line carries them ("b"): encoded sorted, in base64.
func encodedBuckets(counts map[int32]int64) string {
	sorted := slices.Sorted(maps.Keys(counts))
	return base64.StdEncoding.EncodeToString(histogram.AppendEncoded(nil, sorted, func(i int32) int64 { return counts[i] }))
}

func (o *opsbenchOutput) flush(all bool) {
	cutoff := time.Now().Unix() - settleSeconds
	httpCells := map[httpKey]*httpCell{}
	loadCells := map[int64]*loadCell{}
	metricCells := map[metricKey]*metricCell{}
	for i := range o.shards {
		sh := &o.shards[i]
		sh.mu.Lock()
		h := takeDue(sh.http, all, cutoff, func(k httpKey) int64 { return k.second })
		l := takeDue(sh.load, all, cutoff, func(s int64) int64 { return s })
		m := takeDue(sh.metrics.cells, all, cutoff, func(k metricKey) int64 { return k.second })
		sh.mu.Unlock()
		for k, c := range h {
			if into := httpCells[k]; into != nil {
				into.merge(c)
			} else {
				httpCells[k] = c
			}
		}
		for k, c := range l {
			if into := loadCells[k]; into != nil {
				into.merge(c)
			} else {
				loadCells[k] = c
			}
		}
		for k, c := range m {
			if into := metricCells[k]; into != nil {
				into.merge(c)
			} else {
				metricCells[k] = c
			}
		}
	}

	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	httpOrder := func(a, b httpKey) int {
		return cmp.Or(cmp.Compare(a.second, b.second), cmp.Compare(a.name, b.name), cmp.Compare(a.class, b.class), boolOrder(a.failed, b.failed))
	}
	for _, k := range slices.SortedFunc(maps.Keys(httpCells), httpOrder) {
		c := httpCells[k]
		o.writeLine(map[string]any{
			"t": "http", "s": k.second, "name": k.name, "class": k.class,
			"n": c.count, "fail": c.failures, "sum": c.sum, "min": c.min, "max": c.max,
			"b": encodedBuckets(c.buckets),
		})
	}
	for _, s := range slices.Sorted(maps.Keys(loadCells)) {
		l := loadCells[s]
		o.writeLine(map[string]any{
			"t": "load", "s": s, "vus": l.vus, "vusMax": l.vusMax, "sent": l.sent, "received": l.received,
			"iterations": l.iterations, "dropped": l.droppedIterations,
		})
	}
	writeMetricLines(metricCells, o.writeLine)
	if err := o.w.Flush(); err != nil {
		slog.Error("opsbench output: write", "error", err)
	}
}

// boolOrder puts false before true.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}

// writeLine writes one NDJSON line; callers hold writeMu.
func (o *opsbenchOutput) writeLine(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		slog.Error("opsbench output: encode", "error", err)
		return
	}
	_, _ = o.w.Write(b)
	_ = o.w.WriteByte('\n')
}

// planLine caps what it carries: 20 scenarios (names of at most 100 characters), thresholds of 100
// metrics with 20 expressions each of at most 200 characters.
func planLine(p Plan) map[string]any {
	scenarios := make([]string, 0, min(len(p.Scenarios), 20))
	for _, s := range p.Scenarios {
		if len(scenarios) >= 20 {
			break
		}
		if name, executor, ok := strings.Cut(s, ":"); ok && len(name) > 100 {
			s = name[:100] + ":" + executor
		}
		scenarios = append(scenarios, s)
	}
	thresholds := make(map[string][]string, min(len(p.Thresholds), 100))
	for _, metric := range slices.Sorted(maps.Keys(p.Thresholds)) {
		if len(thresholds) >= 100 {
			break
		}
		sources := make([]string, 0, len(p.Thresholds[metric]))
		for _, t := range p.Thresholds[metric] {
			if len(sources) < 20 && len(t) <= 200 {
				sources = append(sources, t)
			}
		}
		thresholds[metric] = sources
	}
	return map[string]any{
		"t": "plan", "segmentVUs": p.SegmentVUs, "maxVUs": p.MaxVUs,
		"durationSeconds": p.DurationSeconds, "peakArrivalRate": p.PeakArrivalRate,
		"scenarios": scenarios, "thresholds": thresholds,
	}
}
