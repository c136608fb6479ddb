// Package output is opsbench's k6 output extension. It aggregates samples in
// process into per-second, per-request-name, per-status-class latency
// histograms and writes one NDJSON line per aggregate, so k6 never serialises
// individual requests (k6's own JSON output costs ~12% of its throughput).
// Checks (per check name) and a script's own metrics are aggregated per second
// too (metrics.go).
package output

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.k6.io/k6/metrics"
	"go.k6.io/k6/output"
)

// Alpha is the histogram's relative accuracy: any value is reported within
// Alpha of its true value. The TypeScript reader (packages/core) uses the same
// constant, announced in the "meta" line so stored data stays self-describing.
const (
	Alpha         = 0.008
	FormatVersion = 4
	minValueMs    = 0.001 // values below 1 microsecond share one bucket
	// A second is written once no sample for it can still arrive: k6 hands
	// samples over in batches, at most a few hundred milliseconds late.
	settleSeconds = 2
)

var gamma = (1 + Alpha) / (1 - Alpha)
var lnGamma = math.Log(gamma)

func init() {
	output.RegisterExtension("opsbench", New)
}

// A cell holds only successful or only failed requests (k6's expected_response),
// so latency of successful responses alone is exact: two lines of one status
// class may share a second and name, one with fail 0 and one with fail = n.
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

type loadCell struct {
	vus, vusMax                   float64
	sent, received                float64
	iterations, droppedIterations float64
}

// Output implements output.Output. Samples are aggregated as they arrive (no
// buffer of sample containers to grow and collect), under a mutex shared with
// the once-a-second flush.
type Output struct {
	params  output.Params
	closer  io.Closer
	w       *bufio.Writer
	flusher *output.PeriodicFlusher
	// sink is set in HTTP mode: what is flushed is posted once a second.
	sink *httpSink

	mu      sync.Mutex
	http    map[httpKey]*httpCell
	load    map[int64]*loadCell
	metrics metricAggregates
	// k6's clock, written on the "end" line so req/s is taken over the test k6
	// ran, not over the worker's wall clock around the whole k6 process (unix ns):
	// when the output started (k6 is about to start the test: its test run
	// duration counts from about here), and the first and last sample. The
	// once-a-second VU-count ticks do not move lastNs: they go on after the test.
	startNs, firstNs, lastNs int64
}

// New opens the destination: "fd:N" (a pipe the parent process gave k6) or a file path.
func New(p output.Params) (output.Output, error) {
	dest := strings.TrimSpace(p.ConfigArgument)
	if dest == "" {
		return nil, fmt.Errorf("opsbench output needs a destination: --out opsbench=FILE, fd:N or https://.../api/v1/runs/<id>/ingest")
	}
	if strings.HasPrefix(dest, "http://") || strings.HasPrefix(dest, "https://") {
		sink, err := newHTTPSink(dest, p.Environment["K6_OPSBENCH_TOKEN"], p.ScriptOptions.ExecutionSegment.String(), p.Logger)
		if err != nil {
			return nil, err
		}
		return &Output{
			params: p, closer: sink, w: bufio.NewWriterSize(sink, 64*1024), sink: sink,
			http: map[httpKey]*httpCell{}, load: map[int64]*loadCell{}, metrics: newMetricAggregates(),
		}, nil
	}
	var f *os.File
	if strings.HasPrefix(dest, "fd:") {
		n, err := strconv.Atoi(strings.TrimPrefix(dest, "fd:"))
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
	return &Output{
		params: p, closer: f, w: bufio.NewWriterSize(f, 64*1024),
		http: map[httpKey]*httpCell{}, load: map[int64]*loadCell{}, metrics: newMetricAggregates(),
	}, nil
}

func (o *Output) Description() string { return "opsbench (per-second histograms)" }

func (o *Output) Start() error {
	o.startNs = time.Now().UnixNano()
	o.writeLine(map[string]any{"t": "meta", "version": FormatVersion, "alpha": Alpha, "minValueMs": minValueMs})
	// Before any VU exists: the runner stops a test whose plan is above the run's limits (plan.go).
	o.writeLine(planLine(o.params.ScriptOptions, o.params.ExecutionPlan))
	_ = o.w.Flush()
	f, err := output.NewPeriodicFlusher(time.Second, func() {
		o.flush(false)
		if o.sink != nil {
			o.sink.send()
		}
	})
	if err != nil {
		return err
	}
	o.flusher = f
	return nil
}

func (o *Output) Stop() error {
	o.flusher.Stop()
	o.flush(true)
	end := map[string]any{"t": "end", "startMs": float64(o.startNs) / 1e6}
	if o.lastNs != 0 {
		end["firstMs"] = float64(o.firstNs) / 1e6
		end["lastMs"] = float64(o.lastNs) / 1e6
	}
	o.writeLine(end)
	if err := o.w.Flush(); err != nil {
		return err
	}
	return o.closer.Close()
}

// statusClass names a response's outcome: "2xx".."5xx", or for requests without
// a response, from k6's error codes: "timeout" (1050), "connection" (DNS and TCP,
// 1100-1299) or "error" (anything else, e.g. TLS).
func statusClass(tags *metrics.TagSet) string {
	status, _ := tags.Get("status")
	if status != "" && status != "0" {
		return status[:1] + "xx"
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

// AddMetricSamples is called by k6 with every batch of samples; it only updates counters.
func (o *Output) AddMetricSamples(containers []metrics.SampleContainer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range containers {
		for _, s := range c.GetSamples() {
			sec := s.Time.Unix()
			if at := s.Time.UnixNano(); o.firstNs == 0 || at < o.firstNs {
				o.firstNs = at
			}
			if at := s.Time.UnixNano(); at > o.lastNs && s.Metric.Name != "vus" && s.Metric.Name != "vus_max" {
				o.lastNs = at
			}
			switch s.Metric.Name {
			case "http_req_duration":
				name, _ := s.Tags.Get("name")
				expected, _ := s.Tags.Get("expected_response")
				k := httpKey{sec, name, statusClass(s.Tags), expected == "false"}
				cell := o.http[k]
				if cell == nil {
					cell = &httpCell{min: math.Inf(1), max: math.Inf(-1), buckets: map[int32]int64{}}
					o.http[k] = cell
				}
				v := s.Value
				cell.count++
				if k.failed {
					cell.failures++
				}
				cell.sum += v
				cell.min = math.Min(cell.min, v)
				cell.max = math.Max(cell.max, v)
				cell.buckets[bucketIndex(v)]++
			case "vus", "vus_max", "data_sent", "data_received", "iterations", "dropped_iterations":
				l := o.load[sec]
				if l == nil {
					l = &loadCell{}
					o.load[sec] = l
				}
				switch s.Metric.Name {
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
				name, _ := s.Tags.Get("check")
				o.metrics.add(sec, name, "check", "", s)
			default:
				if !isBuiltinMetric(s.Metric.Name) {
					o.metrics.add(sec, s.Metric.Name, s.Metric.Type.String(), unitOf(s.Metric), s)
				}
			}
		}
	}
}

// dueKeys lists, in order, the keys of the cells of seconds up to cutoff (all of them when all is set).
func dueKeys[K comparable, V any](cells map[K]V, all bool, cutoff int64, second func(K) int64, order func(a, b K) int) []K {
	keys := make([]K, 0, len(cells))
	for k := range cells {
		if all || second(k) <= cutoff {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, order)
	return keys
}

// encodedBuckets is a histogram's buckets as a line carries them ("b"): encodeBuckets of them sorted, in base64.
func encodedBuckets(counts map[int32]int64) string {
	sorted := slices.Sorted(maps.Keys(counts))
	return base64.StdEncoding.EncodeToString(encodeBuckets(sorted, counts))
}

// encodeBuckets writes sorted sparse buckets compactly, as HdrHistogram does:
// signed (zigzag) varints, first the lowest index, then for each bucket its count,
// with a run of k empty buckets written as -k. Dense buckets cost a byte or two,
// isolated ones two. packages/core/src/histograms/histogram-encoding.ts reads it.
func encodeBuckets(sorted []int32, counts map[int32]int64) []byte {
	out := make([]byte, 0, len(sorted)*2+4)
	if len(sorted) == 0 {
		return out
	}
	out = appendZigzag(out, int64(sorted[0]))
	for n, i := range sorted {
		if n > 0 {
			if empty := int64(i-sorted[n-1]) - 1; empty > 0 {
				out = appendZigzag(out, -empty)
			}
		}
		out = appendZigzag(out, counts[i])
	}
	return out
}

func appendZigzag(out []byte, v int64) []byte {
	return binary.AppendUvarint(out, uint64((v<<1)^(v>>63)))
}

// negativeIndexOffset: a negative value -v goes to bucket negativeIndexOffset -
// index(v), so bucket order is value order and a script's own Trend keeps its
// sign (positive values use about -430..45,000). packages/core/src/histograms/histogram.ts does the same.
const negativeIndexOffset = -(1 << 24)

func magnitudeIndex(v float64) int32 {
	if v < minValueMs {
		v = minValueMs
	}
	return int32(math.Ceil(math.Log(v) / lnGamma))
}

// bucketIndex: values within minValueMs of zero share the lowest positive bucket.
func bucketIndex(v float64) int32 {
	if v <= -minValueMs {
		return negativeIndexOffset - magnitudeIndex(-v)
	}
	return magnitudeIndex(v)
}

func (o *Output) flush(all bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	cutoff := time.Now().Unix() - settleSeconds
	httpOrder := func(a, b httpKey) int {
		return cmp.Or(cmp.Compare(a.second, b.second), cmp.Compare(a.name, b.name), cmp.Compare(a.class, b.class), boolOrder(a.failed, b.failed))
	}
	for _, k := range dueKeys(o.http, all, cutoff, func(k httpKey) int64 { return k.second }, httpOrder) {
		c := o.http[k]
		o.writeLine(map[string]any{
			"t": "http", "s": k.second, "name": k.name, "class": k.class,
			"n": c.count, "fail": c.failures, "sum": c.sum, "min": c.min, "max": c.max,
			"b": encodedBuckets(c.buckets),
		})
		delete(o.http, k)
	}
	for _, s := range dueKeys(o.load, all, cutoff, func(s int64) int64 { return s }, cmp.Compare[int64]) {
		l := o.load[s]
		o.writeLine(map[string]any{
			"t": "load", "s": s, "vus": l.vus, "vusMax": l.vusMax, "sent": l.sent, "received": l.received,
			"iterations": l.iterations, "dropped": l.droppedIterations,
		})
		delete(o.load, s)
	}
	o.metrics.flush(all, cutoff, o.writeLine)
	_ = o.w.Flush()
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

func (o *Output) writeLine(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		o.params.Logger.WithError(err).Error("opsbench output: encode")
		return
	}
	_, _ = o.w.Write(b)
	_ = o.w.WriteByte('\n')
}
