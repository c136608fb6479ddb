package thresholds_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/summary"
	"github.com/opsbench/opsbench/engine/internal/thresholds"
)

func registry(t *testing.T) *metrics.Registry {
	t.Helper()
	r := metrics.NewRegistry()
	for _, m := range []struct {
		name string
		typ  metrics.Type
		v    metrics.ValueType
	}{{"errors", metrics.Counter, metrics.Default}, {"content_size", metrics.Gauge, metrics.Data}, {"content_ok", metrics.Rate, metrics.Default}, {"rtt", metrics.Trend, metrics.Time}} {
		if _, err := r.Get(m.name, m.typ, m.v); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func parse(t *testing.T, r *metrics.Registry, raw string) *thresholds.Set {
	t.Helper()
	s, err := thresholds.Parse([]byte(raw), r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func add(a metrics.Sink, m *metrics.Metric, tags map[string]string, values ...float64) {
	var ts *metrics.TagSet
	if tags != nil {
		ts = metrics.NewTags(tags)
	}
	batch := make([]metrics.Sample, len(values))
	for i, v := range values {
		batch[i] = metrics.Sample{Metric: m, Tags: ts, Time: time.Unix(1_700_000_000, int64(i)), Value: v}
	}
	a.AddSamples(batch)
}

// Every aggregation of every metric type, with every operator, against values whose aggregations are known.
func TestEveryAggregationAndOperator(t *testing.T) {
	r := registry(t)
	a := summary.NewAggregator(r, nil)
	add(a, r.Lookup("errors"), nil, 3, 7)                    // count 10, rate 10/5s = 2
	add(a, r.Lookup("content_size"), nil, 4000, 3500)        // value (last) 3500
	add(a, r.Lookup("content_ok"), nil, 1, 1, 1, 0)          // rate 0.75
	add(a, r.Lookup("rtt"), nil, 10, 20, 30, 40, 50, 60, 70) // avg 40, min 10, max 70, med 40, p(90) 64, p(99.5) 69.7
	cases := []struct {
		metric, expr string
		ok           bool
	}{
		{"errors", "count<11", true}, {"errors", "count<10", false}, {"errors", "count<=10", true},
		{"errors", "count>10", false}, {"errors", "count>=10", true}, {"errors", "count==10", true},
		{"errors", "count===10", true}, {"errors", "count!=10", false}, {"errors", "rate==2", true},
		{"errors", "rate < 1.5", false},
		{"content_size", "value<4000", true}, {"content_size", "value == 3500", true},
		{"content_ok", "rate>0.95", false}, {"content_ok", "rate>=0.75", true},
		{"rtt", "avg==40", true}, {"rtt", "min==10", true}, {"rtt", "max<70", false}, {"rtt", "med==40", true},
		{"rtt", "p(90)>63.999", true}, {"rtt", "p(90)<64.001", true}, {"rtt", "p(99.5) > 69.69", true}, {"rtt", "p(99.5) < 69.71", true},
		{"rtt", "p(0)==10", true}, {"rtt", "p(100)==70", true}, {"rtt", "p(50)!=40", false},
		{"rtt", "avg < 1e3", true}, {"rtt", "min > -5", true},
	}
	raw := map[string][]string{}
	for _, c := range cases {
		raw[c.metric] = append(raw[c.metric], fmt.Sprintf("%q", c.expr))
	}
	var parts []string
	for m, exprs := range raw {
		parts = append(parts, fmt.Sprintf("%q: [%s]", m, strings.Join(exprs, ",")))
	}
	s := parse(t, r, "{"+strings.Join(parts, ",")+"}")
	if abort, _ := s.Evaluate(a, 5*time.Second, true); abort {
		t.Error("no threshold aborts")
	}
	res := s.Results()
	for _, c := range cases {
		if got, found := res[c.metric][c.expr]; !found || got != c.ok {
			t.Errorf("%s %s: ok=%v (found %v), want %v; observed %v", c.metric, c.expr, got, found, c.ok, s.Observed()[c.metric][c.expr])
		}
	}
	if !s.AnyFailed() {
		t.Error("AnyFailed must see the crossed ones")
	}
	if src := s.Sources()["rtt"]; !slices.Contains(src, "p(99.5) > 69.69") {
		t.Errorf("sources keep the expressions as written: %v", src)
	}
}

func TestSubmetricsFilterByTags(t *testing.T) {
	r := metrics.NewRegistry()
	s := parse(t, r, `{
		"http_req_duration{type:API}": ["p(95)<500"],
		"http_req_duration{type:staticContent}": ["p(95)<200"],
		"group_duration{group:::batch}": ["avg<100"],
		"checks{check:'status is 200', scenario:main}": ["rate==1"]
	}`)
	subs := s.Submetrics()
	slices.Sort(subs)
	if len(subs) != 4 || subs[0] != "checks{check:'status is 200', scenario:main}" {
		t.Fatalf("submetrics: %v", subs)
	}
	a := summary.NewAggregator(r, subs)
	add(a, r.Builtin.HTTPReqDuration, map[string]string{"type": "API"}, 100, 200, 300)
	add(a, r.Builtin.HTTPReqDuration, map[string]string{"type": "staticContent"}, 300, 400)
	add(a, r.Builtin.GroupDuration, map[string]string{"group": "::batch"}, 50, 70)
	add(a, r.Builtin.GroupDuration, map[string]string{"group": "::other"}, 5000)
	add(a, r.Builtin.Checks, map[string]string{"check": "status is 200", "scenario": "main"}, 1, 1)
	add(a, r.Builtin.Checks, map[string]string{"check": "status is 200", "scenario": "other"}, 0)
	add(a, r.Builtin.Checks, map[string]string{"check": "body", "scenario": "main"}, 0)
	s.Evaluate(a, time.Second, true)
	res := s.Results()
	if !res["http_req_duration{type:API}"]["p(95)<500"] || res["http_req_duration{type:staticContent}"]["p(95)<200"] {
		t.Errorf("http submetrics: %v", res)
	}
	if !res["group_duration{group:::batch}"]["avg<100"] {
		t.Errorf("a group's tag value starts with '::': %v", res)
	}
	if !res["checks{check:'status is 200', scenario:main}"]["rate==1"] {
		t.Errorf("checks submetric (quoted value, two tags): %v %v", res, s.Observed())
	}
}

func TestParseErrorsNameTheMetricAndExpression(t *testing.T) {
	r := registry(t)
	cases := map[string][]string{
		`{"nope": ["count<1"]}`:            {`"nope"`, "no metric named"},
		`{"errors": ["count<"]}`:           {`"errors"`, `"count<"`},
		`{"errors": ["avg<1"]}`:            {`"errors"`, `"avg"`, "counter"},
		`{"content_size": ["count<1"]}`:    {`"content_size"`, "gauge"},
		`{"content_ok": ["count<1"]}`:      {`"content_ok"`, "rate"},
		`{"rtt": ["rate<1"]}`:              {`"rtt"`, "trend"},
		`{"rtt": ["p(101)<1"]}`:            {`"rtt"`, "p(101)<1", "0 to 100"},
		`{"rtt": ["p(abc)<1"]}`:            {`"rtt"`, "p(abc)<1"},
		`{"rtt": ["p(95)<abc"]}`:           {`"rtt"`, `"abc" is not a number`},
		`{"rtt": ["p(95)=>5"]}`:            {`"rtt"`, "p(95)=>5"},
		`{"rtt": ["avg(3)<5"]}`:            {`"rtt"`, "avg(3)<5"},
		`{"rtt{": ["avg<5"]}`:              {`"rtt{"`},
		`{"rtt{a}": ["avg<5"]}`:            {`"rtt{a}"`, "tag:value"},
		`{"rtt": [{"abortOnFail": true}]}`: {`"rtt"`, "threshold"},
		`{"rtt": [{"threshold": "avg<5", "delayAbortEval": "soon"}]}`: {`"rtt"`, "avg<5", "delayAbortEval"},
		`{"rtt": 5}`: {`"rtt"`},
		`["rtt"]`:    {"options.thresholds"},
	}
	for raw, want := range cases {
		_, err := thresholds.Parse([]byte(raw), r)
		if err == nil {
			t.Errorf("%s: no error", raw)
			continue
		}
		if !errors.Is(err, thresholds.ErrInvalid) {
			t.Errorf("%s: %v does not wrap ErrInvalid", raw, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %s", raw, err, w)
			}
		}
	}
	for _, raw := range []string{"", "null", "{}"} {
		if s, err := thresholds.Parse([]byte(raw), r); err != nil || len(s.Sources()) != 0 || s.AnyFailed() {
			t.Errorf("%q: %v", raw, err)
		}
	}
}

func TestAbortOnFailWaitsForDelayAbortEval(t *testing.T) {
	r := registry(t)
	s := parse(t, r, `{"rtt": [{"threshold": "p(99) < 10", "abortOnFail": true, "delayAbortEval": "10s"}, "avg<1000"],
		"errors": [{"threshold": "count<5", "abortOnFail": false}]}`)
	a := summary.NewAggregator(r, nil)
	// No samples yet: nothing is judged while the test runs.
	if abort, _ := s.Evaluate(a, 30*time.Second, false); abort || s.AnyFailed() {
		t.Fatal("a threshold without samples is not judged during the test")
	}
	add(a, r.Lookup("rtt"), nil, 50, 60)
	add(a, r.Lookup("errors"), nil, 9)
	if abort, _ := s.Evaluate(a, 5*time.Second, false); abort {
		t.Fatal("aborted before delayAbortEval")
	}
	if !s.AnyFailed() {
		t.Fatal("crossed thresholds fail even before their abort delay")
	}
	abort, reason := s.Evaluate(a, 11*time.Second, false)
	if !abort || !strings.Contains(reason, "p(99) < 10") || !strings.Contains(reason, "rtt") || strings.Contains(reason, "count<5") {
		t.Fatalf("abort %v, reason %q", abort, reason)
	}
	// The threshold that stopped the test stays failed, even if later values would pass it.
	add(a, r.Lookup("rtt"), nil, make([]float64, 1000)...)
	s.Evaluate(a, 12*time.Second, true)
	if s.Results()["rtt"]["p(99) < 10"] {
		t.Error("the threshold that aborted the test must stay failed")
	}
	if !s.Results()["rtt"]["avg<1000"] {
		t.Error("other thresholds are judged anew")
	}
}

func TestDelayAbortEvalForms(t *testing.T) {
	r := registry(t)
	for raw, want := range map[string]time.Duration{`"1m30s"`: 90 * time.Second, `"500ms"`: 500 * time.Millisecond, `2000`: 2 * time.Second, `"250"`: 250 * time.Millisecond} {
		s := parse(t, r, `{"rtt": [{"threshold": "avg<1", "abortOnFail": true, "delayAbortEval": `+raw+`}]}`)
		if got := s.Metrics()[0].Thresh[0].DelayAbort; got != want {
			t.Errorf("%s: %v, want %v", raw, got, want)
		}
	}
}

// At the end, thresholds on metrics without samples are judged on zero values (as k6 does since v0.38).
func TestFinalEvaluationJudgesEmptyMetrics(t *testing.T) {
	r := registry(t)
	s := parse(t, r, `{"errors": ["count>0"], "http_req_failed": ["rate<0.01"], "http_req_duration": ["p(95)<500"]}`)
	a := summary.NewAggregator(r, nil)
	s.Evaluate(a, time.Second, true)
	res := s.Results()
	if res["errors"]["count>0"] || !res["http_req_failed"]["rate<0.01"] || !res["http_req_duration"]["p(95)<500"] {
		t.Errorf("results: %v", res)
	}
}

func TestThresholdsOnCustomMetricsNeedTheRegistry(t *testing.T) {
	r := metrics.NewRegistry()
	if _, err := thresholds.Parse([]byte(`{"my_counter": ["count>500"]}`), r); err == nil {
		t.Fatal("a metric not (yet) registered must be refused")
	}
	if _, err := r.Get("my_counter", metrics.Counter, metrics.Default); err != nil {
		t.Fatal(err)
	}
	if _, err := thresholds.Parse([]byte(`{"my_counter": ["count>500"]}`), r); err != nil {
		t.Fatal(err)
	}
}

func TestParseKey(t *testing.T) {
	cases := map[string]string{
		"http_req_duration": "http_req_duration []",
		" http_req_duration{ expected_response : true } ": "http_req_duration [[expected_response true]]",
		"group_duration{group:::a::b}":                    "group_duration [[group ::a::b]]",
		`http_req_duration{name:"http://x/a,b"}`:          `http_req_duration [[name "http://x/a] [b" ]]`,
		"checks{check:status is 200,scenario:s1}":         "checks [[check status is 200] [scenario s1]]",
	}
	for key, want := range cases {
		name, tags, err := thresholds.ParseKey(key)
		if key == `http_req_duration{name:"http://x/a,b"}` {
			// A comma separates tags: a value with a comma cannot be written (as in k6).
			if err == nil {
				t.Errorf("%s: parsed as %v", key, tags)
			}
			continue
		}
		if got := fmt.Sprint(name, " ", tags); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", key, got, err, want)
		}
	}
}
