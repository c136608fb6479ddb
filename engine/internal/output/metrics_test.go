package output

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/output/histogram"
)

func metricLines(lines []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, l := range lines {
		if l["t"] == "metric" {
			out[fmt.Sprintf("%v/%v/%v", l["s"], l["kind"], l["name"])] = l
		}
	}
	return out
}

func must(m *metrics.Metric, err error) *metrics.Metric {
	if err != nil {
		panic(err)
	}
	return m
}

func TestChecksAndCustomMetricsPerSecond(t *testing.T) {
	r := metrics.NewRegistry()
	checks := r.Builtin.Checks
	counter := must(r.Get("orders", metrics.Counter, metrics.Default))
	rate := must(r.Get("cache_hits", metrics.Rate, metrics.Default))
	trend := must(r.Get("db_time", metrics.Trend, metrics.Time))
	gauge := must(r.Get("queue_depth", metrics.Gauge, metrics.Default))
	builtin := r.Builtin.IterationDuration
	ws := must(r.Get("ws_sessions", metrics.Counter, metrics.Default))

	t0 := time.Unix(1_700_000_000, 0)
	at := func(sec int, ms int) time.Time {
		return t0.Add(time.Duration(sec)*time.Second + time.Duration(ms)*time.Millisecond)
	}
	sample := func(m *metrics.Metric, tags *metrics.TagSet, tm time.Time, v float64) metrics.Sample {
		return metrics.Sample{Metric: m, Tags: tags, Time: tm, Value: v}
	}
	check := func(name string) *metrics.TagSet { return metrics.NewTags(map[string]string{"check": name}) }
	ok := check("status is 200")
	lines := runOutput(t, Plan{}, []metrics.Sample{
		sample(checks, ok, at(0, 1), 1), sample(checks, ok, at(0, 2), 1), sample(checks, ok, at(0, 3), 0),
		sample(checks, check("body ok"), at(1, 0), 1),
		sample(counter, nil, at(0, 1), 2), sample(counter, nil, at(0, 5), 3),
		sample(rate, nil, at(0, 1), 1), sample(rate, nil, at(0, 2), 0), sample(rate, nil, at(0, 3), 1), sample(rate, nil, at(0, 4), 1),
		sample(trend, nil, at(0, 1), 10), sample(trend, nil, at(0, 2), 20),
	}, []metrics.Sample{
		sample(trend, nil, at(0, 3), 30),
		// The gauge's last value is the latest sample's, whatever order (and batch) they arrive in.
		sample(gauge, nil, at(0, 900), 7),
	}, []metrics.Sample{
		sample(gauge, nil, at(0, 100), 3),
		sample(builtin, nil, at(0, 1), 99), sample(ws, nil, at(0, 1), 1),
	})
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
	if l := get(s, "check", "status is 200"); l["n"] != 3.0 || l["pass"] != 2.0 || l["unit"] != "" {
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
	want := histogram.AppendEncoded(nil, []int32{histogram.Index(10), histogram.Index(20), histogram.Index(30)}, func(int32) int64 { return 1 })
	if !bytes.Equal(raw, want) {
		t.Errorf("trend buckets: got %x, want %x", raw, want)
	}
	if l := get(s, "gauge", "queue_depth"); l["last"] != 7.0 || l["min"] != 3.0 || l["max"] != 7.0 || l["b"] != nil {
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
	// The engine's clock: the first and the last sample of any metric (at(0, 1) and at(1, 0)), and when the output started.
	if end["firstMs"] != float64(t0.UnixMilli()+1) || end["lastMs"] != float64(t0.UnixMilli()+1000) {
		t.Errorf("end line's clock: %v", end)
	}
	if started, ok := end["startMs"].(float64); !ok || started < float64(time.Now().Add(-time.Minute).UnixMilli()) {
		t.Errorf("end line's start: %v", end["startMs"])
	}
}

func TestMetricNamesAreBounded(t *testing.T) {
	r := metrics.NewRegistry()
	var batches [][]metrics.Sample
	for i := 0; i < maxSeriesPerKind+20; i++ {
		tags := metrics.NewTags(map[string]string{"check": fmt.Sprintf("check %d", i)})
		// One sample a batch: names are admitted across shards.
		batches = append(batches, []metrics.Sample{{Metric: r.Builtin.Checks, Tags: tags, Time: time.Unix(1_700_000_000, 0), Value: 1}})
	}
	m := metricLines(runOutput(t, Plan{}, batches...))
	if len(m) != maxSeriesPerKind+1 {
		t.Fatalf("got %d series, want %d", len(m), maxSeriesPerKind+1)
	}
	if l := m[fmt.Sprintf("%v/check/%s", float64(1_700_000_000), otherName)]; l == nil || l["n"] != 20.0 {
		t.Errorf("other: %v", l)
	}
}

func TestLongNamesAreFolded(t *testing.T) {
	r := metrics.NewRegistry()
	at := time.Unix(1_700_000_000, 0)
	long := strings.Repeat("x", maxNameLength+1)
	fits := strings.Repeat("y", maxNameLength)
	tags := func(k, v string) *metrics.TagSet { return metrics.NewTags(map[string]string{k: v}) }
	lines := runOutput(t, Plan{}, []metrics.Sample{
		{Metric: r.Builtin.Checks, Tags: tags("check", long), Time: at, Value: 1},
		{Metric: r.Builtin.Checks, Tags: tags("check", fits), Time: at, Value: 1},
		{Metric: r.Builtin.HTTPReqDuration, Tags: tags("name", long), Time: at, Value: 5},
		{Metric: r.Builtin.HTTPReqDuration, Tags: tags("name", fits), Time: at, Value: 5},
	})
	var names []string
	for _, l := range lines {
		if l["t"] == "http" || l["t"] == "metric" {
			names = append(names, fmt.Sprintf("%v:%v", l["t"], l["name"]))
		}
	}
	slices.Sort(names)
	want := []string{"http:" + fits, "http:" + otherHTTPName, "metric:" + otherName, "metric:" + fits}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("names: got %v, want %v", names, want)
	}
}
