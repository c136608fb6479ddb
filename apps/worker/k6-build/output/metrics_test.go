package output

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/metrics"
	"go.k6.io/k6/output"
)

// runOutput feeds samples through a real Output writing to a file and returns its lines.
func runOutput(t *testing.T, samples []metrics.Sample) []map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.ndjson")
	o, err := New(output.Params{ConfigArgument: path, Logger: logrus.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	o.AddMetricSamples([]metrics.SampleContainer{metrics.Samples(samples)})
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	return lines
}

func metricLines(lines []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, l := range lines {
		if l["t"] == "metric" {
			out[fmt.Sprintf("%v/%v/%v", l["s"], l["kind"], l["name"])] = l
		}
	}
	return out
}

func TestChecksAndCustomMetricsPerSecond(t *testing.T) {
	r := metrics.NewRegistry()
	root := r.RootTagSet()
	checks := r.MustNewMetric("checks", metrics.Rate)
	counter := r.MustNewMetric("orders", metrics.Counter)
	rate := r.MustNewMetric("cache_hits", metrics.Rate)
	trend := r.MustNewMetric("db_time", metrics.Trend, metrics.Time)
	gauge := r.MustNewMetric("queue_depth", metrics.Gauge)
	builtin := r.MustNewMetric("iteration_duration", metrics.Trend, metrics.Time)
	ws := r.MustNewMetric("ws_sessions", metrics.Counter)

	t0 := time.Unix(1_700_000_000, 0)
	at := func(sec int, ms int) time.Time { return t0.Add(time.Duration(sec)*time.Second + time.Duration(ms)*time.Millisecond) }
	sample := func(m *metrics.Metric, tags *metrics.TagSet, tm time.Time, v float64) metrics.Sample {
		return metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: tm, Value: v}
	}
	ok := root.With("check", "status is 200")
	samples := []metrics.Sample{
		sample(checks, ok, at(0, 1), 1), sample(checks, ok, at(0, 2), 1), sample(checks, ok, at(0, 3), 0),
		sample(checks, root.With("check", "body ok"), at(1, 0), 1),
		sample(counter, root, at(0, 1), 2), sample(counter, root, at(0, 5), 3),
		sample(rate, root, at(0, 1), 1), sample(rate, root, at(0, 2), 0), sample(rate, root, at(0, 3), 1), sample(rate, root, at(0, 4), 1),
		sample(trend, root, at(0, 1), 10), sample(trend, root, at(0, 2), 20), sample(trend, root, at(0, 3), 30),
		// The gauge's last value is the latest sample's, whatever order they arrive in.
		sample(gauge, root, at(0, 900), 7), sample(gauge, root, at(0, 100), 3),
		sample(builtin, root, at(0, 1), 99), sample(ws, root, at(0, 1), 1),
	}
	lines := runOutput(t, samples)
	if lines[0]["version"] != float64(FormatVersion) {
		t.Fatalf("meta line: %v", lines[0])
	}
	m := metricLines(lines)
	s := t0.Unix()
	get := func(sec int64, kind, name string) map[string]any {
		l := m[fmt.Sprintf("%v/%v/%v", float64(sec), kind, name)]
		if l == nil {
			t.Fatalf("no %s %q line for second %d; have %v", kind, name, sec, m)
		}
		return l
	}
	if l := get(s, "check", "status is 200"); l["n"] != 3.0 || l["pass"] != 2.0 {
		t.Errorf("check: %v", l)
	}
	if l := get(s+1, "check", "body ok"); l["n"] != 1.0 || l["pass"] != 1.0 {
		t.Errorf("check in the next second: %v", l)
	}
	if l := get(s, "counter", "orders"); l["sum"] != 5.0 || l["n"] != 2.0 {
		t.Errorf("counter: %v", l)
	}
	if l := get(s, "rate", "cache_hits"); l["pass"] != 3.0 || l["n"] != 4.0 {
		t.Errorf("rate: %v", l)
	}
	l := get(s, "trend", "db_time")
	if l["n"] != 3.0 || l["sum"] != 60.0 || l["min"] != 10.0 || l["max"] != 30.0 || l["unit"] != "ms" {
		t.Errorf("trend: %v", l)
	}
	raw, _ := base64.StdEncoding.DecodeString(l["b"].(string))
	want := encodeBuckets([]int32{bucketIndex(10), bucketIndex(20), bucketIndex(30)}, map[int32]int64{bucketIndex(10): 1, bucketIndex(20): 1, bucketIndex(30): 1})
	if string(raw) != string(want) {
		t.Errorf("trend buckets: got %x, want %x", raw, want)
	}
	if l := get(s, "gauge", "queue_depth"); l["last"] != 7.0 || l["min"] != 3.0 || l["max"] != 7.0 {
		t.Errorf("gauge: %v", l)
	}
	for k := range m {
		if k == fmt.Sprintf("%v/trend/iteration_duration", float64(s)) || k == fmt.Sprintf("%v/counter/ws_sessions", float64(s)) {
			t.Errorf("built-in metric written as a custom one: %s", k)
		}
	}
	end := lines[len(lines)-1]
	if end["t"] != "end" {
		t.Errorf("last line: %v", end)
	}
	// k6's clock: the first and the last sample of any metric (at(0, 1) and at(1, 0)), and when the output started.
	if end["firstMs"] != float64(t0.UnixMilli()+1) || end["lastMs"] != float64(t0.UnixMilli()+1000) {
		t.Errorf("end line's k6 clock: %v", end)
	}
	if started, ok := end["startMs"].(float64); !ok || started < float64(time.Now().Add(-time.Minute).UnixMilli()) {
		t.Errorf("end line's start: %v", end["startMs"])
	}
}

func TestMetricNamesAreBounded(t *testing.T) {
	r := metrics.NewRegistry()
	checks := r.MustNewMetric("checks", metrics.Rate)
	var samples []metrics.Sample
	for i := 0; i < maxSeriesPerKind+20; i++ {
		tags := r.RootTagSet().With("check", fmt.Sprintf("check %d", i))
		samples = append(samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: checks, Tags: tags}, Time: time.Unix(1_700_000_000, 0), Value: 1})
	}
	m := metricLines(runOutput(t, samples))
	if len(m) != maxSeriesPerKind+1 {
		t.Fatalf("got %d series, want %d", len(m), maxSeriesPerKind+1)
	}
	if l := m[fmt.Sprintf("%v/check/%s", float64(1_700_000_000), otherName)]; l == nil || l["n"] != 20.0 {
		t.Errorf("other: %v", l)
	}
}
