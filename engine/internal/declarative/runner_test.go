package declarative

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// seen is one request the test server received.
type seen struct {
	method, path, auth, admin, body, remote string
	close                                   bool
}

type testTarget struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

// newTarget answers POST /signin/N with {"token":"t-N"}, POST /admin with {"jwt":"J"}, /status/N with N,
// /text with a body that is not JSON, anything else with 200 "ok".
func newTarget(t *testing.T) *testTarget {
	tt := &testTarget{}
	tt.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		tt.mu.Lock()
		tt.reqs = append(tt.reqs, seen{method: r.Method, path: r.URL.RequestURI(), auth: r.Header.Get("Authorization"),
			admin: r.Header.Get("X-Admin"), body: string(body), remote: r.RemoteAddr, close: r.Close})
		tt.mu.Unlock()
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
		switch parts[0] {
		case "signin":
			_, _ = fmt.Fprintf(w, `{"token":"t-%s","n":%s}`, parts[1], parts[1])
		case "admin":
			_, _ = io.WriteString(w, `{"jwt":"J","list":[1,2]}`)
		case "status":
			code, _ := strconv.Atoi(parts[1])
			w.WriteHeader(code)
		case "text":
			_, _ = io.WriteString(w, "hello")
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	t.Cleanup(tt.Close)
	return tt
}

func (tt *testTarget) requests() []seen {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return append([]seen(nil), tt.reqs...)
}

type sampleLog struct {
	mu      sync.Mutex
	samples []metrics.Sample
}

func (l *sampleLog) AddSamples(s []metrics.Sample) {
	l.mu.Lock()
	l.samples = append(l.samples, s...)
	l.mu.Unlock()
}

// count sums the values of a metric's samples whose tags include all of want.
func (l *sampleLog) count(metric string, want map[string]string) (n int, sum float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.samples {
		if s.Metric.Name != metric {
			continue
		}
		ok := true
		for k, v := range want {
			if got, has := s.Tags.Get(k); !has || got != v {
				ok = false
			}
		}
		if ok {
			n++
			sum += s.Value
		}
	}
	return n, sum
}

func loadRequest(name, method string, path []any, extra map[string]any) map[string]any {
	r := map[string]any{"name": name, "tag": name, "method": method, "path": path, "body": nil, "headers": []any{}, "expectStatus": nil, "weight": 1}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

func setupRequest(name, method string, path []any, forEach any, capture []any) map[string]any {
	return map[string]any{"name": name, "tag": "setup: " + name, "method": method, "path": path, "body": nil, "headers": []any{},
		"expectStatus": nil, "forEach": forEach, "capture": capture}
}

func poolPart(pool, field string) map[string]any {
	return map[string]any{"type": "pool", "pool": pool, "field": field}
}

// run loads a workload against the target, runs setup, and iterations on `vus` VUs (each VU n iterations).
func run(t *testing.T, target *testTarget, program map[string]any, vus, n int) (*sampleLog, *Runner) {
	t.Helper()
	log := &sampleLog{}
	r, err := New(workloadJSON(t, program), map[string]string{"OPSBENCH_BASE_URL": target.URL + "/"}, metrics.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	data, err := r.Setup(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	runVUs(t, r, data, vus, n, t.Context())
	return log, r
}

func runVUs(t *testing.T, r *Runner, data json.RawMessage, vus, n int, ctx context.Context) {
	t.Helper()
	var wg sync.WaitGroup
	var next sync.Mutex
	inTest := int64(0)
	tags := metrics.NewTags(map[string]string{"scenario": "main"})
	for id := 1; id <= vus; id++ {
		v, err := r.NewVU(ctx, uint64(id), uint64(id))
		if err != nil {
			t.Fatal(err)
		}
		active := v.Activate(vu.Activation{Ctx: ctx, Scenario: "main", Executor: "shared-iterations", Exec: "default", Tags: tags, SetupData: data})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				next.Lock()
				it := inTest
				inTest++
				next.Unlock()
				if err := active.RunIteration(vu.Iteration{InTest: it, InInstance: it}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

func TestSequenceSamplesAndChecks(t *testing.T) {
	target := newTarget(t)
	log, _ := run(t, target, map[string]any{"requests": []any{
		loadRequest("list", "GET", []any{text("/items?page=1")}, nil),
		loadRequest("create", "POST", []any{text("/items")}, map[string]any{"body": []any{text(`{"a":1}`)},
			"headers": []any{map[string]any{"name": "content-type", "value": []any{text("application/json")}}}, "expectStatus": []any{201, 202}}),
		loadRequest("missing", "GET", []any{text("/status/404")}, map[string]any{"expectStatus": []any{404}}),
	}}, 2, 5)

	got := map[string]int{}
	for _, s := range target.requests() {
		got[s.method+" "+s.path]++
		if s.method == "POST" && s.body != `{"a":1}` {
			t.Errorf("POST body %q", s.body)
		}
	}
	if want := map[string]int{"GET /items?page=1": 10, "POST /items": 10, "GET /status/404": 10}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	for name, want := range map[string]string{"list": "true", "create": "false", "missing": "true"} {
		if n, _ := log.count("http_reqs", map[string]string{"name": name, "scenario": "main", "group": "", "expected_response": want}); n != 10 {
			t.Errorf("http_reqs{name:%s, expected_response:%s}: %d samples, want 10", name, want, n)
		}
	}
	if n, sum := log.count("checks", map[string]string{"check": "create status 201|202", "group": "", "scenario": "main"}); n != 10 || sum != 0 {
		t.Errorf("create's check: %d samples passing %v, want 10 failing", n, sum)
	}
	if n, sum := log.count("checks", map[string]string{"check": "missing status 404"}); n != 10 || sum != 10 {
		t.Errorf("missing's check: %d samples passing %v, want 10 passing", n, sum)
	}
	if n, _ := log.count("checks", map[string]string{}); n != 20 {
		t.Errorf("%d check samples, want 20 (a request without expectStatus has none)", n)
	}
	if _, sent := log.count("data_sent", nil); sent <= 0 {
		t.Error("no data_sent")
	}
}

func TestWeightedMixWithZipfPool(t *testing.T) {
	target := newTarget(t)
	rows := make([]any, 20)
	for i := range rows {
		rows[i] = map[string]any{"id": fmt.Sprintf("p%d", i)}
	}
	run(t, target, map[string]any{
		"mix":   "weighted",
		"pools": map[string]any{"product": map[string]any{"choice": map[string]any{"zipf": 1.25}, "rows": rows}},
		"requests": []any{
			loadRequest("view", "GET", []any{text("/products/"), poolPart("product", "id")}, map[string]any{"weight": 3}),
			loadRequest("buy", "POST", []any{text("/orders")}, map[string]any{"weight": 1, "body": []any{text(`{"product":"`), poolPart("product", "id"), text(`"}`)}}),
		},
	}, 4, 1000)

	var views, buys int
	products := map[string]int{}
	for _, s := range target.requests() {
		switch {
		case strings.HasPrefix(s.path, "/products/"):
			views++
			products[strings.TrimPrefix(s.path, "/products/")]++
		case s.path == "/orders":
			buys++
			products[strings.TrimSuffix(strings.TrimPrefix(s.body, `{"product":"`), `"}`)]++
		}
	}
	if views+buys != 4000 || math.Abs(float64(views)/4000-0.75) > 0.03 {
		t.Errorf("%d views and %d buys, want 4000 in the ratio 3:1", views, buys)
	}
	probs := zipfProbabilities(20, 1.25)
	for k := range 3 {
		if f := float64(products[fmt.Sprintf("p%d", k)]) / 4000; math.Abs(f-probs[k]) > 0.03 {
			t.Errorf("product p%d chosen %.3f of the time, Zipf says %.3f", k, f, probs[k])
		}
	}
}

func TestSetupCapturesAndForEach(t *testing.T) {
	target := newTarget(t)
	program := map[string]any{
		"pools": map[string]any{"user": map[string]any{"choice": "sequential", "dimensions": []any{map[string]any{"name": "user", "size": 3}}}},
		"setup": []any{
			setupRequest("signin", "POST", []any{text("/signin/"), poolPart("user", "user")}, "user",
				[]any{map[string]any{"name": "token", "selector": "token"}, map[string]any{"name": "n", "selector": "n"}}),
			setupRequest("admin", "POST", []any{text("/admin")}, nil,
				[]any{map[string]any{"name": "jwt", "selector": "jwt"}, map[string]any{"name": "list", "selector": "list"}}),
		},
		"requests": []any{loadRequest("me", "GET", []any{text("/me/"), poolPart("user", "user"), text("?n="), poolPart("user", "n"), text("&l="),
			map[string]any{"type": "setup", "name": "list"}}, map[string]any{
			"headers": []any{
				map[string]any{"name": "Authorization", "value": []any{text("Bearer "), poolPart("user", "token")}},
				map[string]any{"name": "X-Admin", "value": []any{map[string]any{"type": "setup", "name": "jwt"}}},
			}})},
	}
	log := &sampleLog{}
	r, err := New(workloadJSON(t, program), map[string]string{"OPSBENCH_BASE_URL": target.URL}, metrics.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetOptions(json.RawMessage(`{"tags":{"team":"a"}}`)); err != nil {
		t.Fatal(err)
	}
	data, err := r.Setup(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"vars":{"jwt":"J","list":[1,2]},"rows":{"user":[{"token":"t-1","n":1},{"token":"t-2","n":2},{"token":"t-3","n":3}]}}`
	if string(data) != want {
		t.Errorf("setup data\n%s\nwant\n%s", data, want)
	}
	if n, _ := log.count("http_reqs", map[string]string{"name": "setup: signin", "group": "::setup", "team": "a"}); n != 3 {
		t.Errorf("%d signin samples in group ::setup, want 3", n)
	}
	runVUs(t, r, data, 1, 6, t.Context())

	var load []seen
	for _, s := range target.requests() {
		if strings.HasPrefix(s.path, "/me/") {
			load = append(load, s)
		}
	}
	if len(load) != 6 {
		t.Fatalf("%d load requests, want 6", len(load))
	}
	for i, s := range load {
		user := i%3 + 1 // sequential: iteration i takes row i mod 3
		if wantPath := fmt.Sprintf("/me/%d?n=%d&l=1,2", user, user); s.path != wantPath || s.auth != fmt.Sprintf("Bearer t-%d", user) || s.admin != "J" {
			t.Errorf("request %d: %s with Authorization %q, X-Admin %q; want %s with the token of user %d", i, s.path, s.auth, s.admin, wantPath, user)
		}
	}
}

func TestSetupFailuresNameTheRequest(t *testing.T) {
	target := newTarget(t)
	userPool := map[string]any{"user": map[string]any{"choice": "uniform", "dimensions": []any{map[string]any{"name": "user", "size": 2}}}}
	for name, tc := range map[string]struct {
		setup   map[string]any
		baseURL string
		want    string
	}{
		"status": {setupRequest("signin", "POST", []any{text("/status/500")}, "user", nil), "",
			`setup request "signin" (user row 0) failed: status 500`},
		"expected status": {func() map[string]any {
			s := setupRequest("seed", "POST", []any{text("/admin")}, nil, nil)
			s["expectStatus"] = []any{201}
			return s
		}(), "", `setup request "seed" failed: status 200`},
		"not JSON": {setupRequest("greet", "GET", []any{text("/text")}, nil, []any{map[string]any{"name": "x", "selector": "x"}}), "",
			`setup request "greet": the response is not JSON, cannot capture x`},
		"nothing there": {setupRequest("admin", "POST", []any{text("/admin")}, nil, []any{map[string]any{"name": "id", "selector": "data.id"}}), "",
			`setup request "admin": the response has nothing at "data.id" to capture as id`},
		"no server": {setupRequest("signin", "POST", []any{text("/")}, nil, nil), "http://127.0.0.1:1",
			`setup request "signin" failed: status 0 (`},
	} {
		base := tc.baseURL
		if base == "" {
			base = target.URL
		}
		r, err := New(workloadJSON(t, map[string]any{"pools": userPool, "setup": []any{tc.setup}}), map[string]string{"OPSBENCH_BASE_URL": base}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Setup(t.Context())
		var se *SetupError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a SetupError starting %q", name, err, tc.want)
		}
	}
}

func TestNoSetupIsNull(t *testing.T) {
	r, err := New(workloadJSON(t, nil), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := r.Setup(t.Context()); err != nil || string(data) != "null" {
		t.Fatalf("setup data %s, %v", data, err)
	}
}

func TestReconnectEvery(t *testing.T) {
	target := newTarget(t)
	run(t, target, map[string]any{"reconnectEvery": 3, "requests": []any{
		loadRequest("a", "GET", []any{text("/a")}, nil),
		loadRequest("b", "GET", []any{text("/b")}, nil),
	}}, 1, 9)
	var closing []string
	conns := map[string]bool{}
	for _, s := range target.requests() {
		conns[s.remote] = true
		if s.close {
			closing = append(closing, s.path)
		}
	}
	// Iterations 3, 6 and 9 end with "Connection: close" on their last request, so 9 iterations use 3 connections
	// and the request after each close opens a new one.
	if len(closing) != 3 || closing[0] != "/b" {
		t.Errorf("requests saying Connection: close: %v, want /b three times", closing)
	}
	if len(conns) != 3 {
		t.Errorf("%d connections, want 3", len(conns))
	}
}

func TestNoConnectionReuse(t *testing.T) {
	target := newTarget(t)
	program := map[string]any{"noConnectionReuse": true, "requests": []any{loadRequest("a", "GET", []any{text("/a")}, nil)}}
	run(t, target, program, 1, 5)
	conns := map[string]bool{}
	for _, s := range target.requests() {
		conns[s.remote] = true
	}
	if len(conns) != 5 {
		t.Errorf("%d connections for 5 requests without reuse", len(conns))
	}
}

func TestStopsPromptlyWhenTheScenarioEnds(t *testing.T) {
	target := newTarget(t)
	r, err := New(workloadJSON(t, map[string]any{"thinkTime": 30}), map[string]string{"OPSBENCH_BASE_URL": target.URL}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	v, err := r.NewVU(ctx, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	active := v.Activate(vu.Activation{Ctx: ctx, Tags: metrics.NewTags(map[string]string{"scenario": "main"}), SetupData: json.RawMessage("null")})
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	if err := active.RunIteration(vu.Iteration{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the iteration took %v after its context ended", d)
	}
	if n := len(target.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestThinkTimeRange(t *testing.T) {
	target := newTarget(t)
	r, err := New(workloadJSON(t, map[string]any{"thinkTime": map[string]any{"min": 0.05, "max": 0.1}}), map[string]string{"OPSBENCH_BASE_URL": target.URL}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	runVUs(t, r, nil, 1, 4, t.Context())
	if d := time.Since(start); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("4 iterations with 50-100 ms of think time took %v", d)
	}
}

// testdata/shop.json is what compileDeclarativeWorkload wrote for a workload with every feature (see the parity
// test in engine/test for the comparison with the generated script).
func TestRunsTheCompilersOutput(t *testing.T) {
	target := newTarget(t)
	log := &sampleLog{}
	r, err := Load("testdata/shop.json", map[string]string{"OPSBENCH_BASE_URL": target.URL, "REGION": "eu"}, metrics.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	var opts struct {
		Scenarios map[string]struct{ Executor string } `json:"scenarios"`
	}
	if err := json.Unmarshal(r.Options(), &opts); err != nil || opts.Scenarios["main"].Executor != "shared-iterations" {
		t.Fatalf("options %s", r.Options())
	}
	data, err := r.Setup(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	runVUs(t, r, data, 2, 10, t.Context())
	var views, buys int
	for _, s := range target.requests() {
		switch {
		case s.path == "/admin":
			if s.body != `{"r":"eu"}` {
				t.Errorf("admin body %q", s.body)
			}
		case strings.HasPrefix(s.path, "/products/"):
			views++
			if !strings.HasPrefix(s.auth, "Bearer t-") || s.admin != "J" {
				t.Errorf("view without the captured token: %+v", s)
			}
		case s.path == "/orders":
			buys++
			if s.body != `{"p":"p-1","price":3.5,"pad":"xxxx"}` && s.body != `{"p":"p-2","price":4,"pad":"xxxx"}` {
				t.Errorf("buy body %q", s.body)
			}
		}
	}
	if views+buys != 20 || views == 0 {
		t.Errorf("%d views, %d buys", views, buys)
	}
	if n, _ := log.count("http_reqs", map[string]string{"name": "setup: signin"}); n != 6 {
		t.Errorf("%d signin requests, want one per user row (6)", n)
	}
}

// exec.vu.iterationInScenario goes on when a VU serves the same scenario again (arrival-rate executors activate a
// VU for each iteration): reconnectEvery counts a VU's iterations in the scenario, not per activation.
func TestIterationInScenarioSurvivesActivations(t *testing.T) {
	target := newTarget(t)
	r, err := New(workloadJSON(t, map[string]any{"requests": []any{loadRequest("i", "GET", []any{text("/i/"), map[string]any{"type": "iteration"}}, nil)}}),
		map[string]string{"OPSBENCH_BASE_URL": target.URL}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.NewVU(t.Context(), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	tags := metrics.NewTags(map[string]string{"scenario": "main"})
	for _, sc := range []string{"main", "main", "other", "main"} {
		a := v.Activate(vu.Activation{Ctx: t.Context(), Scenario: sc, Tags: tags})
		if err := a.RunIteration(vu.Iteration{}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, s := range target.requests() {
		got = append(got, s.path)
	}
	if want := "[/i/0 /i/1 /i/0 /i/2]"; fmt.Sprint(got) != want {
		t.Errorf("iterations %v, want %s", got, want)
	}
}
