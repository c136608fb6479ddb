package summary

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/output/histogram"
	"github.com/opsbench/opsbench/engine/internal/thresholds"
)

var t0 = time.Unix(1_700_000_000, 0)

func samples(m *metrics.Metric, tags map[string]string, values ...float64) []metrics.Sample {
	var ts *metrics.TagSet
	if tags != nil {
		ts = metrics.NewTags(tags)
	}
	out := make([]metrics.Sample, len(values))
	for i, v := range values {
		out[i] = metrics.Sample{Metric: m, Tags: ts, Time: t0.Add(time.Duration(i) * time.Millisecond), Value: v}
	}
	return out
}

// testRun is a small test's samples: two requests (one failed), checks at the top and in nested groups,
// a custom counter, gauge, rate and trend.
func testRun(t *testing.T) (*metrics.Registry, *Aggregator, *thresholds.Set) {
	t.Helper()
	r := metrics.NewRegistry()
	b := r.Builtin
	orders, _ := r.Get("orders", metrics.Counter, metrics.Default)
	depth, _ := r.Get("queue_depth", metrics.Gauge, metrics.Default)
	hits, _ := r.Get("cache_hits", metrics.Rate, metrics.Default)
	wait, _ := r.Get("wait", metrics.Trend, metrics.Default)
	ths, err := thresholds.Parse([]byte(`{
		"http_req_duration": ["p(95)<500", "avg<100"],
		"http_req_duration{name:home}": ["max<1000"],
		"checks": ["rate>0.5"],
		"orders": ["count>=10"]
	}`), r)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAggregator(r, ths.Submetrics())
	a.AddSamples(samples(b.HTTPReqDuration, map[string]string{"name": "home", "expected_response": "true"}, 100, 300))
	a.AddSamples(samples(b.HTTPReqDuration, map[string]string{"name": "api", "expected_response": "false"}, 900))
	a.AddSamples(samples(b.HTTPReqFailed, nil, 0, 0, 1))
	a.AddSamples(samples(b.HTTPReqs, nil, 1, 1, 1))
	a.AddSamples(samples(b.Checks, map[string]string{"check": "status is 200", "group": ""}, 1, 1, 0))
	a.AddSamples(samples(b.Checks, map[string]string{"check": "has body", "group": "::shop"}, 1))
	a.AddSamples(samples(b.Checks, map[string]string{"check": "paid", "group": "::shop::cart"}, 0))
	a.AddSamples(samples(b.GroupDuration, map[string]string{"group": "::shop::cart"}, 12))
	a.AddSamples(samples(b.GroupDuration, map[string]string{"group": "::empty"}, 3))
	a.AddSamples(samples(orders, nil, 4, 6))
	a.AddSamples(samples(depth, nil, 3, 9, 5))
	a.AddSamples(samples(hits, nil, 1, 0, 1, 1))
	a.AddSamples(samples(wait, nil, 1, 2, 3, 4))
	a.AddSamples(samples(b.DataReceived, nil, 519_000))
	ths.Evaluate(a, 2*time.Second, true)
	return r, a, ths
}

func metricOf(t *testing.T, data map[string]any, key string) map[string]any {
	t.Helper()
	m, ok := data["metrics"].(map[string]any)[key].(map[string]any)
	if !ok {
		t.Fatalf("no metric %q in %v", key, data["metrics"])
	}
	return m
}

func TestDataIsK6sSummaryObject(t *testing.T) {
	_, a, ths := testRun(t)
	data := Data(a, ths, Options{TestDuration: 2 * time.Second, TimeUnit: "ms", StdOutTTY: true})

	dur := metricOf(t, data, "http_req_duration")
	if dur["type"] != "trend" || dur["contains"] != "time" {
		t.Errorf("http_req_duration: %v", dur)
	}
	v := dur["values"].(map[string]any)
	if len(v) != 6 || v["avg"] != 1300.0/3 || v["min"] != 100.0 || v["max"] != 900.0 || v["med"] != 300.0 || math.Abs(v["p(95)"].(float64)-840) > 1e-9 {
		t.Errorf("trend values: %v", v)
	}
	th := dur["thresholds"].(map[string]any)
	if th["p(95)<500"].(map[string]any)["ok"] != false || th["avg<100"].(map[string]any)["ok"] != false {
		t.Errorf("thresholds: %v", th)
	}
	ok := metricOf(t, data, "http_req_duration{expected_response:true}")
	if ok["values"].(map[string]any)["max"] != 300.0 || ok["thresholds"] != nil {
		t.Errorf("the default sub-metric: %v", ok)
	}
	home := metricOf(t, data, "http_req_duration{name:home}")
	if home["thresholds"].(map[string]any)["max<1000"].(map[string]any)["ok"] != true {
		t.Errorf("sub-metric thresholds: %v", home)
	}
	if c := metricOf(t, data, "orders"); c["type"] != "counter" || c["values"].(map[string]any)["count"] != 10.0 || c["values"].(map[string]any)["rate"] != 5.0 {
		t.Errorf("counter: %v", c)
	}
	if g := metricOf(t, data, "queue_depth")["values"].(map[string]any); g["value"] != 5.0 || g["min"] != 3.0 || g["max"] != 9.0 {
		t.Errorf("gauge: %v", g)
	}
	if r := metricOf(t, data, "cache_hits")["values"].(map[string]any); r["rate"] != 0.75 || r["passes"] != 3.0 || r["fails"] != 1.0 {
		t.Errorf("rate: %v", r)
	}
	if d := metricOf(t, data, "data_received"); d["contains"] != "data" {
		t.Errorf("data: %v", d)
	}
	if _, has := data["metrics"].(map[string]any)["vus"]; has {
		t.Error("metrics without samples (or thresholds) are left out")
	}

	root := data["root_group"].(map[string]any)
	if root["name"] != "" || root["path"] != "" || root["id"] != "d41d8cd98f00b204e9800998ecf8427e" {
		t.Errorf("root group: %v", root)
	}
	checks := root["checks"].([]any)
	if len(checks) != 1 {
		t.Fatalf("root checks: %v", checks)
	}
	c := checks[0].(map[string]any)
	if c["name"] != "status is 200" || c["path"] != "::status is 200" || c["passes"] != 2.0 || c["fails"] != 1.0 || len(c["id"].(string)) != 32 {
		t.Errorf("check: %v", c)
	}
	groups := root["groups"].([]any)
	if len(groups) != 2 || groups[0].(map[string]any)["name"] != "empty" || groups[1].(map[string]any)["name"] != "shop" {
		t.Fatalf("groups: %v", groups)
	}
	shop := groups[1].(map[string]any)
	cart := shop["groups"].([]any)[0].(map[string]any)
	if shop["path"] != "::shop" || cart["name"] != "cart" || cart["path"] != "::shop::cart" || cart["checks"].([]any)[0].(map[string]any)["path"] != "::shop::cart::paid" {
		t.Errorf("nested groups: %v", shop)
	}

	if o := data["options"].(map[string]any); o["summaryTimeUnit"] != "ms" || len(o["summaryTrendStats"].([]any)) != 6 || o["noColor"] != false {
		t.Errorf("options: %v", o)
	}
	if s := data["state"].(map[string]any); s["testRunDurationMs"] != 2000.0 || s["isStdOutTTY"] != true || s["isStdErrTTY"] != false {
		t.Errorf("state: %v", s)
	}
	// handleSummary gets it through JSON-like values only.
	if _, err := json.Marshal(data); err != nil {
		t.Fatal(err)
	}
}

func TestTrendStatsOption(t *testing.T) {
	_, a, ths := testRun(t)
	data := Data(a, ths, Options{TrendStats: []string{"count", "p(99.99)", "med"}, TestDuration: time.Second})
	v := metricOf(t, data, "wait")["values"].(map[string]any)
	if len(v) != 3 || v["count"] != 4.0 || v["med"] != 2.5 || math.Abs(v["p(99.99)"].(float64)-3.9997) > 1e-9 {
		t.Errorf("values: %v", v)
	}
	if err := ValidateTrendStats([]string{"avg", "p(99.9)", "count"}); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"p(101)", "mean", "p(x)"} {
		if ValidateTrendStats([]string{bad}) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestExportJSONIsK6sSummaryExport(t *testing.T) {
	_, a, ths := testRun(t)
	raw, err := ExportJSON(Data(a, ths, Options{TestDuration: 2 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		RootGroup struct {
			ID     string `json:"id"`
			Checks map[string]struct {
				Path          string
				Passes, Fails float64
			} `json:"checks"`
			Groups map[string]struct {
				Path   string                    `json:"path"`
				Groups map[string]map[string]any `json:"groups"`
			} `json:"groups"`
		} `json:"root_group"`
		Metrics map[string]map[string]any `json:"metrics"`
		State   map[string]float64        `json:"state"`
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	if c := exp.RootGroup.Checks["status is 200"]; c.Passes != 2 || c.Fails != 1 || c.Path != "::status is 200" {
		t.Errorf("checks keyed by name: %v", exp.RootGroup.Checks)
	}
	if exp.RootGroup.Groups["shop"].Path != "::shop" || exp.RootGroup.Groups["shop"].Groups["cart"]["path"] != "::shop::cart" {
		t.Errorf("groups keyed by name: %v", exp.RootGroup.Groups)
	}
	dur := exp.Metrics["http_req_duration"]
	if dur["avg"] != 1300.0/3 || dur["med"] != 300.0 || dur["values"] != nil || dur["type"] != nil {
		t.Errorf("trend values flat: %v", dur)
	}
	// true when crossed (failed).
	if th := dur["thresholds"].(map[string]any); th["p(95)<500"] != true || th["avg<100"] != true {
		t.Errorf("trend thresholds: %v", th)
	}
	if th := exp.Metrics["orders"]["thresholds"].(map[string]any); th["count>=10"] != false {
		t.Errorf("counter thresholds: %v", th)
	}
	if checks := exp.Metrics["checks"]; checks["passes"] != 3.0 || checks["fails"] != 2.0 || checks["value"] != 0.6 || checks["rate"] != nil || checks["thresholds"].(map[string]any)["rate>0.5"] != false {
		t.Errorf("rate as passes, fails, value: %v", checks)
	}
	if o := exp.Metrics["orders"]; o["count"] != 10.0 || o["rate"] != 5.0 {
		t.Errorf("counter: %v", o)
	}
	if g := exp.Metrics["queue_depth"]; g["value"] != 5.0 || g["min"] != 3.0 || g["max"] != 9.0 {
		t.Errorf("gauge: %v", g)
	}
	if exp.State["testRunDurationMs"] != 2000 {
		t.Errorf("state: %v", exp.State)
	}
}

func TestTextSummary(t *testing.T) {
	_, a, ths := testRun(t)
	text := Text(Data(a, ths, Options{TestDuration: 2 * time.Second}))
	for _, want := range []string{
		"█ THRESHOLDS",
		"✗ 'p(95)<500' p(95)=840ms",
		"✓ 'max<1000' max=300ms",
		"✓ 'count>=10' count=10",
		"✓ 'rate>0.5' rate=60.00%",
		"█ TOTAL RESULTS",
		"checks_total.......................: 5      2.5/s",
		"checks_succeeded...................: 60.00% 3 out of 5",
		"✗ status is 200",
		"↳  66% — ✓ 2 / ✗ 1",
		"✓ has body",
		"✗ paid",
		"↳  0% — ✓ 0 / ✗ 1",
		"█ shop",
		"CUSTOM",
		"orders.............................: 10",
		"HTTP",
		"http_req_duration..................: avg=433.33ms",
		"  { expected_response:true }.......: avg=200ms",
		"http_req_failed....................: 33.33% 1 out of 3",
		"NETWORK",
		"data_received......................: 519 kB 260 kB/s",
		"queue_depth........................: 5",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "█ empty") {
		t.Error("a group without checks has no heading")
	}
	if strings.Contains(text, "\x1b[") {
		t.Error("no colours when stdout is not a terminal")
	}
	if strings.Index(text, "CUSTOM") > strings.Index(text, "HTTP") || strings.Index(text, "HTTP") > strings.Index(text, "NETWORK") {
		t.Error("categories out of order")
	}
}

func TestFormatting(t *testing.T) {
	for ms, want := range map[float64]string{0: "0s", 0.007: "7µs", 0.01225: "12.25µs", 148.2149: "148.21ms", 1350: "1.35s", 62_345: "1m2.35s"} {
		if got := formatTime(ms, ""); got != want {
			t.Errorf("formatTime(%v) = %q, want %q", ms, got, want)
		}
	}
	if got := formatTime(148.2149, "s"); got != "0.1482s" {
		t.Errorf("in seconds: %q", got)
	}
	for b, want := range map[float64]string{830: "830 B", 4900: "4.9 kB", 519_000: "519 kB", 1_300_000: "1.3 MB"} {
		if got := formatBytes(b); got != want {
			t.Errorf("formatBytes(%v) = %q, want %q", b, got, want)
		}
	}
	if got := formatNumber(13.1221790); got != "13.122179" {
		t.Errorf("formatNumber: %q", got)
	}
}

// Percentiles are exact up to the cap (linear interpolation between closest ranks), and past it come
// from the histogram, within its relative accuracy, with memory bounded.
func TestPercentilesPastTheCapComeFromTheHistogram(t *testing.T) {
	old := ExactValuesCap
	ExactValuesCap = 20_000
	defer func() { ExactValuesCap = old }()
	r := metrics.NewRegistry()
	m, _ := r.Get("latency", metrics.Trend, metrics.Time)
	a := NewAggregator(r, nil)
	var all []float64
	rng := rand.New(rand.NewPCG(1, 2))
	add := func(n int) {
		batch := make([]metrics.Sample, 0, 100)
		for i := 0; i < n; i++ {
			v := math.Exp(rng.NormFloat64()) * 100
			all = append(all, v)
			batch = append(batch, metrics.Sample{Metric: m, Time: t0, Value: v})
			if len(batch) == cap(batch) {
				a.AddSamples(batch)
				batch = batch[:0]
			}
		}
		a.AddSamples(batch)
	}
	stats := []string{"p(50)", "p(90)", "p(99)", "p(99.9)", "min", "max", "avg"}
	exact := func() map[string]float64 {
		s := slices.Sorted(slices.Values(all))
		at := func(p float64) float64 {
			pos := p / 100 * float64(len(s)-1)
			lo := int(pos)
			if lo+1 >= len(s) {
				return s[len(s)-1]
			}
			return s[lo] + (s[lo+1]-s[lo])*(pos-float64(lo))
		}
		sum := 0.0
		for _, v := range s {
			sum += v
		}
		return map[string]float64{"p(50)": at(50), "p(90)": at(90), "p(99)": at(99), "p(99.9)": at(99.9), "min": s[0], "max": s[len(s)-1], "avg": sum / float64(len(s))}
	}

	add(10_000)
	got, ok := a.Values("latency", time.Second, stats)
	want := exact()
	if !ok || !a.Exact("latency") {
		t.Fatal("under the cap the percentiles must be exact")
	}
	for _, s := range stats {
		if math.Abs(got[s]-want[s]) > 1e-9*want[s] {
			t.Errorf("%s under the cap: %v, want %v", s, got[s], want[s])
		}
	}

	add(90_000)
	got, _ = a.Values("latency", time.Second, stats)
	want = exact()
	if a.Exact("latency") {
		t.Fatal("past the cap the trend must fall back to the histogram")
	}
	for _, s := range stats {
		// The histogram's accuracy, plus the gap between neighbouring values at that rank.
		if math.Abs(got[s]-want[s])/want[s] > histogram.Alpha+0.002 {
			t.Errorf("%s past the cap: %v, want %v (%.4f)", s, got[s], want[s], math.Abs(got[s]-want[s])/want[s])
		}
	}
	if got["min"] != want["min"] || got["max"] != want["max"] || math.Abs(got["avg"]-want["avg"]) > 1e-9*want["avg"] {
		t.Errorf("min, max and avg stay exact: %v", got)
	}
	var kept int
	for i := range a.shards {
		for _, e := range a.shards[i].byMetric {
			kept += cap(e.main.pending)
		}
	}
	if st := a.stores["latency"]; st.sorted != nil || kept > int(ExactValuesCap)+len(a.shards)*2*keptChunk {
		t.Errorf("values kept past the cap: %d sorted, %d pending", len(st.sorted), kept)
	}
}

// Reads between writes (thresholds evaluated while the test runs) see every value once.
func TestIncrementalReadsMergeValues(t *testing.T) {
	r := metrics.NewRegistry()
	a := NewAggregator(r, nil)
	for i := 0; i < 5; i++ {
		a.AddSamples(samples(r.Builtin.IterationDuration, nil, float64(10-i), float64(20+i)))
		a.Values("iteration_duration", time.Second, []string{"med"})
	}
	v, _ := a.Values("iteration_duration", time.Second, []string{"count", "min", "max", "med", "p(100)"})
	if v["count"] != 10 || v["min"] != 6 || v["max"] != 24 || v["med"] != 15 || v["p(100)"] != 24 {
		t.Errorf("values: %v", v)
	}
	if st := a.stores["iteration_duration"]; !slices.IsSorted(st.sorted) || len(st.sorted) != 10 {
		t.Errorf("store: %v", st.sorted)
	}
}

func TestConcurrentSamplesAreAllCounted(t *testing.T) {
	r := metrics.NewRegistry()
	a := NewAggregator(r, []string{"http_req_duration{name:a}"})
	tags := []*metrics.TagSet{metrics.NewTags(map[string]string{"name": "a"}), metrics.NewTags(map[string]string{"name": "b"})}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]metrics.Sample, 0, 6)
			for n := 0; n < 2000; n++ {
				batch = batch[:0]
				for _, ts := range tags {
					batch = append(batch,
						metrics.Sample{Metric: r.Builtin.HTTPReqDuration, Tags: ts, Time: t0, Value: 2},
						metrics.Sample{Metric: r.Builtin.HTTPReqs, Tags: ts, Time: t0, Value: 1},
						metrics.Sample{Metric: r.Builtin.Checks, Tags: ts, Time: t0, Value: float64(n % 2)})
				}
				a.AddSamples(batch)
				if n%500 == 0 {
					a.Values("http_req_duration", time.Second, []string{"p(95)"})
				}
			}
		}()
	}
	wg.Wait()
	if v, _ := a.Values("http_reqs", 8*time.Second, nil); v["count"] != 32000 || v["rate"] != 4000 {
		t.Errorf("counter: %v", v)
	}
	if v, _ := a.Values("http_req_duration{name:a}", time.Second, []string{"count", "avg"}); v["count"] != 16000 || v["avg"] != 2 {
		t.Errorf("sub-metric: %v", v)
	}
	if v, _ := a.Values("checks", time.Second, nil); v["passes"] != 16000 || v["fails"] != 16000 {
		t.Errorf("rate: %v", v)
	}
	if v, _ := a.Values("http_req_duration", time.Second, []string{"count"}); v["count"] != 32000 || len(a.stores["http_req_duration"].sorted) != 32000 {
		t.Errorf("trend: %v", v)
	}
}

func BenchmarkAddSamples(b *testing.B) {
	r := metrics.NewRegistry()
	a := NewAggregator(r, []string{"http_req_duration{name:home}"})
	tags := metrics.NewTags(map[string]string{"name": "home", "status": "200", "expected_response": "true", "method": "GET"})
	bi := r.Builtin
	b.RunParallel(func(pb *testing.PB) {
		batch := []metrics.Sample{
			{Metric: bi.HTTPReqs, Tags: tags, Value: 1}, {Metric: bi.HTTPReqDuration, Tags: tags, Value: 12},
			{Metric: bi.HTTPReqBlocked, Tags: tags, Value: 0.1}, {Metric: bi.HTTPReqConnecting, Tags: tags},
			{Metric: bi.HTTPReqTLSHandshaking, Tags: tags}, {Metric: bi.HTTPReqSending, Tags: tags, Value: 0.01},
			{Metric: bi.HTTPReqWaiting, Tags: tags, Value: 11}, {Metric: bi.HTTPReqReceiving, Tags: tags, Value: 1},
			{Metric: bi.HTTPReqFailed, Tags: tags}, {Metric: bi.DataSent, Tags: tags, Value: 100},
		}
		for pb.Next() {
			a.AddSamples(batch)
		}
	})
	b.ReportMetric(float64(b.N*10)/b.Elapsed().Seconds(), "samples/s")
}

func TestFilesOverLimit(t *testing.T) {
	mib := strings.Repeat("x", MaxFileBytes)
	if got := FilesOverLimit(map[string]string{"a.json": mib, "stdout": "text"}); got != "" {
		t.Errorf("within the limits: %q", got)
	}
	many := map[string]string{}
	for i := range MaxFiles + 1 {
		many[fmt.Sprintf("f%d", i)] = "x"
	}
	for name, files := range map[string]map[string]string{
		"a file over 1 MiB": {"a.json": mib + "x"},
		"over 2 MiB in all": {"a": mib, "b": mib, "stdout": "x"},
		"21 files":          many,
	} {
		if got := FilesOverLimit(files); !strings.HasPrefix(got, "handleSummary() output over the limit: ") ||
			!strings.HasSuffix(got, "(at most 20 files, 1 MiB each, 2 MiB in all); nothing of it was written") {
			t.Errorf("%s: %q", name, got)
		}
	}
}
