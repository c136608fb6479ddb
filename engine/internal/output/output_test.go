package output

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/output/histogram"
)

func readLines(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

// runOutput feeds samples through a real opsbench output writing to a file and returns its lines.
func runOutput(t *testing.T, plan Plan, batches ...[]metrics.Sample) []map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.ndjson")
	o, err := Open("opsbench="+path, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(plan); err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		o.AddSamples(b)
	}
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readLines(t, f)
}

func linesOf(lines []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["t"] == kind {
			out = append(out, l)
		}
	}
	return out
}

func TestStatusClass(t *testing.T) {
	cases := map[string][2]string{
		"2xx":        {"200", ""},
		"5xx":        {"503", ""},
		"timeout":    {"0", "1050"},
		"connection": {"0", "1212"},
		"error":      {"", "1300"},
	}
	for want, c := range cases {
		tags := metrics.NewTags(map[string]string{"status": c[0], "error_code": c[1]})
		if got := statusClass(tags); got != want {
			t.Errorf("status %q error_code %q: got %q, want %q", c[0], c[1], got, want)
		}
	}
}

// One status class, successful and failed responses in the same second (a script that expects 404 but not 400):
// two lines, one holding only the successes (fail 0) and one only the failures (fail = n), each with its own latencies.
func TestSuccessfulAndFailedResponsesAreSeparateCells(t *testing.T) {
	r := metrics.NewRegistry()
	dur := r.Builtin.HTTPReqDuration
	t0 := time.Unix(1_700_000_000, 0)
	req := func(status, expected string, ms int, v float64) metrics.Sample {
		tags := metrics.NewTags(map[string]string{"name": "get", "status": status, "expected_response": expected})
		return metrics.Sample{Metric: dur, Tags: tags, Time: t0.Add(time.Duration(ms) * time.Millisecond), Value: v}
	}
	// In separate batches, so they may land in different shards and be merged at the flush.
	lines := runOutput(t, Plan{}, []metrics.Sample{req("404", "true", 1, 10), req("400", "false", 2, 1)},
		[]metrics.Sample{req("404", "true", 3, 30)}, []metrics.Sample{req("400", "false", 4, 2)})
	http := linesOf(lines, "http")
	if len(http) != 2 {
		t.Fatalf("want 2 http lines, got %v", http)
	}
	ok, failed := http[0], http[1]
	if ok["class"] != "4xx" || ok["n"] != 2.0 || ok["fail"] != 0.0 || ok["min"] != 10.0 || ok["max"] != 30.0 || ok["sum"] != 40.0 {
		t.Errorf("successful cell: %v", ok)
	}
	if failed["class"] != "4xx" || failed["n"] != 2.0 || failed["fail"] != 2.0 || failed["min"] != 1.0 || failed["max"] != 2.0 {
		t.Errorf("failed cell: %v", failed)
	}
	raw, _ := base64.StdEncoding.DecodeString(ok["b"].(string))
	want := histogram.AppendEncoded(nil, []int32{histogram.Index(10), histogram.Index(30)}, func(int32) int64 { return 1 })
	if !bytes.Equal(raw, want) {
		t.Errorf("buckets: got %x, want %x", raw, want)
	}
}

func TestMetaPlanLoadAndEndLines(t *testing.T) {
	r := metrics.NewRegistry()
	b := r.Builtin
	t0 := time.Unix(1_700_000_000, 0)
	s := func(m *metrics.Metric, ms int, v float64) metrics.Sample {
		return metrics.Sample{Metric: m, Time: t0.Add(time.Duration(ms) * time.Millisecond), Value: v}
	}
	plan := Plan{SegmentVUs: 5, MaxVUs: 10, DurationSeconds: 90, PeakArrivalRate: 200,
		Scenarios: []string{"main:constant-arrival-rate"}, Thresholds: map[string][]string{"http_req_duration": {"p(95)<500"}}}
	lines := runOutput(t, plan,
		[]metrics.Sample{s(b.VUs, 0, 3), s(b.VUs, 500, 5), s(b.VUsMax, 0, 10), s(b.DataSent, 10, 100), s(b.DataReceived, 20, 1000)},
		[]metrics.Sample{s(b.DataSent, 30, 50), s(b.Iterations, 40, 1), s(b.Iterations, 50, 1), s(b.DroppedIterations, 60, 1)},
		// A VU-count tick after the test's last sample does not move the end line's lastMs.
		[]metrics.Sample{s(b.VUs, 5000, 0)},
	)
	meta := lines[0]
	if meta["t"] != "meta" || meta["version"] != 4.0 || meta["alpha"] != 0.008 || meta["minValueMs"] != 0.001 {
		t.Errorf("meta line: %v", meta)
	}
	p := lines[1]
	if p["t"] != "plan" || p["segmentVUs"] != 5.0 || p["maxVUs"] != 10.0 || p["durationSeconds"] != 90.0 || p["peakArrivalRate"] != 200.0 {
		t.Errorf("plan line: %v", p)
	}
	if fmt.Sprint(p["scenarios"]) != "[main:constant-arrival-rate]" || fmt.Sprint(p["thresholds"]) != "map[http_req_duration:[p(95)<500]]" {
		t.Errorf("plan line's scenarios and thresholds: %v", p)
	}
	load := linesOf(lines, "load")
	if len(load) != 2 {
		t.Fatalf("load lines: %v", load)
	}
	l := load[0]
	if l["s"] != float64(t0.Unix()) || l["vus"] != 5.0 || l["vusMax"] != 10.0 || l["sent"] != 150.0 || l["received"] != 1000.0 || l["iterations"] != 2.0 || l["dropped"] != 1.0 {
		t.Errorf("load line: %v", l)
	}
	end := lines[len(lines)-1]
	if end["t"] != "end" || end["firstMs"] != float64(t0.UnixMilli()) || end["lastMs"] != float64(t0.UnixMilli()+60) {
		t.Errorf("end line: %v", end)
	}
	if started, ok := end["startMs"].(float64); !ok || started < float64(time.Now().Add(-time.Minute).UnixMilli()) {
		t.Errorf("end line's start: %v", end["startMs"])
	}
}

// An empty plan still writes arrays and objects (the reader's schema has no nulls).
func TestEmptyPlanHasNoNulls(t *testing.T) {
	lines := runOutput(t, Plan{})
	if p := lines[1]; fmt.Sprint(p["scenarios"]) != "[]" || fmt.Sprint(p["thresholds"]) != "map[]" {
		t.Errorf("plan line: %v", p)
	}
	if end := lines[2]; end["t"] != "end" || end["lastMs"] != nil {
		t.Errorf("end line without samples: %v", end)
	}
}

func TestPlanLineCaps(t *testing.T) {
	p := Plan{Thresholds: map[string][]string{}}
	for i := 0; i < 30; i++ {
		p.Scenarios = append(p.Scenarios, strings.Repeat("s", 150)+":ramping-vus")
	}
	for i := 0; i < 120; i++ {
		p.Thresholds[fmt.Sprintf("m%03d", i)] = append(make([]string, 0), strings.Repeat("x", 201), "count>0")
	}
	line := planLine(p)
	scenarios := line["scenarios"].([]string)
	if len(scenarios) != 20 || scenarios[0] != strings.Repeat("s", 100)+":ramping-vus" {
		t.Errorf("scenarios: %d, %q", len(scenarios), scenarios[0])
	}
	th := line["thresholds"].(map[string][]string)
	if len(th) != 100 || fmt.Sprint(th["m000"]) != "[count>0]" {
		t.Errorf("thresholds: %d, %v", len(th), th["m000"])
	}
}

// Samples of the current second wait for the settle delay; older seconds are written by the once-a-second flush.
func TestFlushWritesSettledSecondsOnly(t *testing.T) {
	r := metrics.NewRegistry()
	path := filepath.Join(t.TempDir(), "out.ndjson")
	o, err := Open("opsbench="+path, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(Plan{}); err != nil {
		t.Fatal(err)
	}
	old, now := time.Now().Add(-10*time.Second), time.Now()
	o.AddSamples([]metrics.Sample{{Metric: r.Builtin.Iterations, Time: old, Value: 1}, {Metric: r.Builtin.Iterations, Time: now, Value: 1}})
	o.(*opsbenchOutput).flush(false)
	raw, _ := os.ReadFile(path)
	load := linesOf(readLines(t, bytes.NewReader(raw)), "load")
	if len(load) != 1 || load[0]["s"] != float64(old.Unix()) {
		t.Errorf("after a flush: %v", load)
	}
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(path)
	if load := linesOf(readLines(t, bytes.NewReader(raw)), "load"); len(load) != 2 {
		t.Errorf("after Stop: %v", load)
	}
}

func TestConcurrentBatchesAreAllCounted(t *testing.T) {
	r := metrics.NewRegistry()
	dur := r.Builtin.HTTPReqDuration
	tags := metrics.NewTags(map[string]string{"name": "home", "status": "200", "expected_response": "true"})
	t0 := time.Unix(1_700_000_000, 0)
	path := filepath.Join(t.TempDir(), "out.ndjson")
	o, err := Open("opsbench="+path, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(Plan{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]metrics.Sample, 10)
			for i := range batch {
				batch[i] = metrics.Sample{Metric: dur, Tags: tags, Time: t0, Value: float64(i + 1)}
			}
			for n := 0; n < 500; n++ {
				o.AddSamples(batch)
			}
		}()
	}
	wg.Wait()
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	http := linesOf(readLines(t, bytes.NewReader(raw)), "http")
	if len(http) != 1 || http[0]["n"] != 40000.0 || http[0]["sum"] != 8*500*55.0 || http[0]["min"] != 1.0 || http[0]["max"] != 10.0 {
		t.Errorf("http lines: %v", http)
	}
}

func TestHTTPModePostsLinesWithTokenAndSegment(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	var auth, segment string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		auth, segment = r.Header.Get("Authorization"), r.Header.Get("X-Opsbench-Segment")
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	if _, err := Open("opsbench="+srv.URL+"/api/v1/runs/r1/ingest", map[string]string{}, ""); err == nil {
		t.Fatal("HTTP mode without a token must fail")
	}
	o, err := Open("opsbench="+srv.URL+"/api/v1/runs/r1/ingest", map[string]string{"OPSBENCH_INGEST_TOKEN": "tok"}, "0:1/2")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(Plan{}); err != nil {
		t.Fatal(err)
	}
	r := metrics.NewRegistry()
	o.AddSamples([]metrics.Sample{{Metric: r.Builtin.Iterations, Time: time.Unix(1_700_000_000, 0), Value: 1}})
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	all := readLines(t, strings.NewReader(strings.Join(bodies, "")))
	if len(all) != 4 || all[0]["t"] != "meta" || all[1]["t"] != "plan" || all[2]["t"] != "load" || all[3]["t"] != "end" {
		t.Errorf("posted lines: %v", all)
	}
	if auth != "Bearer tok" || segment != "0:1/2" {
		t.Errorf("headers: %q %q", auth, segment)
	}
}

func TestHTTPSinkRetriesAndStopsWhenRefused(t *testing.T) {
	var mu sync.Mutex
	status := http.StatusServiceUnavailable
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		w.WriteHeader(status)
	}))
	defer srv.Close()
	s, err := newHTTPSink(srv.URL, "tok", "")
	if err != nil {
		t.Fatal(err)
	}
	s.retryDelay = time.Millisecond
	_, _ = s.Write([]byte("{\"t\":\"meta\"}\n"))
	if s.send() {
		t.Fatal("a 503 must be retried")
	}
	if s.pending.Len() == 0 {
		t.Fatal("a failed batch must be kept")
	}
	mu.Lock()
	status = http.StatusForbidden
	mu.Unlock()
	if !s.send() || !s.refused || s.pending.Len() != 0 {
		t.Fatalf("a 403 stops the sending: refused=%v pending=%d", s.refused, s.pending.Len())
	}
	_, _ = s.Write([]byte("{\"t\":\"end\"}\n"))
	_ = s.Close()
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 {
		t.Errorf("calls after the refusal: %d", calls)
	}
}

func TestJSONOutputWritesK6Lines(t *testing.T) {
	for _, name := range []string{"out.json", "out.json.gz"} {
		r := metrics.NewRegistry()
		path := filepath.Join(t.TempDir(), name)
		o, err := Open("json="+path, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Start(Plan{Thresholds: map[string][]string{"http_req_duration": {"avg<1000"}}}); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2017, 5, 9, 14, 34, 45, 239531499, time.FixedZone("", 2*3600))
		tags := metrics.NewTags(map[string]string{"status": "200", "group": "::my \"group\"", "url": "https://x.test/a<b>"})
		o.AddSamples([]metrics.Sample{
			{Metric: r.Builtin.HTTPReqDuration, Tags: tags, Time: at, Value: 459.865729},
			{Metric: r.Builtin.VUs, Time: at, Value: 5},
			{Metric: r.Builtin.HTTPReqDuration, Tags: tags, Time: at, Value: 1},
		})
		if err := o.Stop(); err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(path)
		var rd io.Reader = f
		if strings.HasSuffix(name, ".gz") {
			if rd, err = gzip.NewReader(f); err != nil {
				t.Fatal(err)
			}
		}
		lines := readLines(t, rd)
		f.Close()
		if len(lines) != 5 {
			t.Fatalf("%s: %d lines: %v", name, len(lines), lines)
		}
		metric := lines[0]
		data := metric["data"].(map[string]any)
		if metric["type"] != "Metric" || metric["metric"] != "http_req_duration" || data["type"] != "trend" || data["contains"] != "time" || fmt.Sprint(data["thresholds"]) != "[avg<1000]" {
			t.Errorf("metric line: %v", metric)
		}
		point := lines[1]
		pd := point["data"].(map[string]any)
		if point["type"] != "Point" || point["metric"] != "http_req_duration" || pd["time"] != "2017-05-09T14:34:45.239531499+02:00" || pd["value"] != 459.865729 {
			t.Errorf("point line: %v", point)
		}
		if tg := pd["tags"].(map[string]any); tg["group"] != "::my \"group\"" || tg["url"] != "https://x.test/a<b>" || tg["status"] != "200" {
			t.Errorf("point tags: %v", pd["tags"])
		}
		if lines[2]["type"] != "Metric" || lines[2]["metric"] != "vus" || lines[3]["data"].(map[string]any)["tags"] != nil {
			t.Errorf("vus lines: %v %v", lines[2], lines[3])
		}
		if lines[4]["type"] != "Point" || lines[4]["metric"] != "http_req_duration" {
			t.Errorf("a known metric's second point repeats no Metric line: %v", lines[4])
		}
	}
}

func TestOpenRefusesUnknownOutputs(t *testing.T) {
	for _, spec := range []string{"influxdb=http://x", "opsbench=", "opsbench=fd:1", "json="} {
		if _, err := Open(spec, nil, ""); err == nil {
			t.Errorf("%q: no error", spec)
		}
	}
}

func BenchmarkOpsbenchAddSamples(b *testing.B) {
	r := metrics.NewRegistry()
	o, err := Open("opsbench="+filepath.Join(b.TempDir(), "out.ndjson"), nil, "")
	if err != nil {
		b.Fatal(err)
	}
	if err := o.Start(Plan{}); err != nil {
		b.Fatal(err)
	}
	tags := metrics.NewTags(map[string]string{"name": "home", "status": "200", "expected_response": "true", "method": "GET"})
	bi := r.Builtin
	b.RunParallel(func(pb *testing.PB) {
		now := time.Now()
		batch := []metrics.Sample{
			{Metric: bi.HTTPReqs, Tags: tags, Time: now, Value: 1}, {Metric: bi.HTTPReqDuration, Tags: tags, Time: now, Value: 12},
			{Metric: bi.HTTPReqBlocked, Tags: tags, Time: now, Value: 0.1}, {Metric: bi.HTTPReqWaiting, Tags: tags, Time: now, Value: 11},
			{Metric: bi.HTTPReqFailed, Tags: tags, Time: now}, {Metric: bi.DataSent, Tags: tags, Time: now, Value: 100},
			{Metric: bi.Checks, Tags: metrics.NewTags(map[string]string{"check": "ok"}), Time: now, Value: 1},
		}
		for pb.Next() {
			o.AddSamples(batch)
		}
	})
	b.ReportMetric(float64(b.N*7)/b.Elapsed().Seconds(), "samples/s")
	b.StopTimer()
	_ = o.Stop()
}
