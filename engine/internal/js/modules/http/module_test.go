package http

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/js/modules"
	"github.com/opsbench/opsbench/engine/internal/metrics"
)

type sink struct {
	mu sync.Mutex
	s  []metrics.Sample
}

func (k *sink) AddSamples(s []metrics.Sample) {
	k.mu.Lock()
	k.s = append(k.s, s...)
	k.mu.Unlock()
}

func (k *sink) of(name string) []metrics.Sample {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []metrics.Sample
	for _, s := range k.s {
		if s.Metric.Name == name {
			out = append(out, s)
		}
	}
	return out
}

type env struct {
	t    *testing.T
	rt   *sobek.Runtime
	vu   *modules.VUState
	sink *sink
	logs []string
}

func newEnv(t *testing.T, options string) *env {
	t.Helper()
	rt := sobek.New()
	e := &env{t: t, rt: rt, sink: &sink{}}
	e.vu = &modules.VUState{
		Runtime: rt, Registry: metrics.NewRegistry(), Samples: e.sink, Ctx: context.Background(),
		Tags: metrics.NewTags(map[string]string{"scenario": "default", "group": ""}), Options: json.RawMessage(options),
		Loop: modules.NewEventLoop(),
	}
	e.vu.Activation.Scenario = "default"
	e.vu.Log = func(level, msg string) { e.logs = append(e.logs, level+": "+msg) }
	obj, err := New(e.vu)
	if err != nil {
		t.Fatal(err)
	}
	rt.Set("http", obj)
	t.Cleanup(func() {
		if st, ok := e.vu.HTTP.(*vuHTTP); ok {
			st.client.Close()
		}
	})
	return e
}

func (e *env) run(src string) sobek.Value {
	e.t.Helper()
	v, err := e.rt.RunString(src)
	if err != nil {
		e.t.Fatalf("script failed: %v", err)
	}
	return v
}

func (e *env) runErr(src string) error {
	_, err := e.rt.RunString(src)
	return err
}

func testServer(t *testing.T) *httptest.Server {
	var mux nethttp.ServeMux
	mux.HandleFunc("/json", func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		io.WriteString(w, `{"a":{"b":[1,{"c":"deep"}]},"n":3,"list":[1,2,3]}`)
	})
	mux.HandleFunc("/echo", func(w nethttp.ResponseWriter, r *nethttp.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s ct=%s ua=%s cookie=%s body=%s", r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"),
			r.Header.Get("User-Agent"), r.Header.Get("Cookie"), b)
	})
	mux.HandleFunc("/multipart", func(w nethttp.ResponseWriter, r *nethttp.Request) {
		_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(p)
			fmt.Fprintf(w, "[%s|%s|%s|%s]", p.FormName(), p.FileName(), p.Header.Get("Content-Type"), b)
		}
	})
	mux.HandleFunc("/status/{code}", func(w nethttp.ResponseWriter, r *nethttp.Request) {
		var code int
		fmt.Sscan(r.PathValue("code"), &code)
		w.WriteHeader(code)
	})
	mux.HandleFunc("/setcookie", func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.SetCookie(w, &nethttp.Cookie{Name: "sid", Value: "abc", Path: "/", HttpOnly: true})
	})
	mux.HandleFunc("/redirect", func(w nethttp.ResponseWriter, r *nethttp.Request) { nethttp.Redirect(w, r, "/json", 302) })
	mux.HandleFunc("/slow", func(w nethttp.ResponseWriter, r *nethttp.Request) {
		time.Sleep(40 * time.Millisecond)
		io.WriteString(w, "slow")
	})
	srv := httptest.NewServer(&mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestGetResponseObject(t *testing.T) {
	srv := testServer(t)
	e := newEnv(t, `{}`)
	e.rt.Set("BASE", srv.URL)
	v := e.run(`
		const r = http.get(BASE + "/json", { headers: { "x-custom": "1" }, tags: { page: "json" } });
		const t = r.timings;
		JSON.stringify({
			status: r.status, text: r.status_text, ct: r.headers["Content-Type"], multi: r.headers["X-Multi"],
			deep: r.json("a.b.1.c"), n: r.json().n, len: r.json("list.#"), missing: r.json("nope.x") === undefined,
			sum: Math.abs(t.duration - (t.sending + t.waiting + t.receiving)) < 1e-6,
			proto: r.proto, url: r.url, ip: r.remote_ip, err: r.error, code: r.error_code,
			reqH: r.request.headers["X-Custom"][0], method: r.request.method,
		})`)
	var got map[string]any
	json.Unmarshal([]byte(v.String()), &got)
	want := map[string]any{"status": 200.0, "text": "200 OK", "ct": "application/json", "multi": "a, b", "deep": "deep",
		"n": 3.0, "len": 3.0, "missing": true, "sum": true, "proto": "HTTP/1.1", "url": srv.URL + "/json",
		"ip": "127.0.0.1", "err": "", "code": 0.0, "reqH": "1", "method": "GET"}
	for k, w := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(w) {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	reqs := e.sink.of("http_reqs")
	if len(reqs) != 1 {
		t.Fatalf("%d http_reqs", len(reqs))
	}
	tags := reqs[0].Tags.Map()
	if tags["name"] != srv.URL+"/json" || tags["page"] != "json" || tags["method"] != "GET" || tags["status"] != "200" ||
		tags["expected_response"] != "true" || tags["scenario"] != "default" {
		t.Fatalf("tags %v", tags)
	}
	if len(e.sink.of("data_received")) != 1 || len(e.sink.of("http_req_failed")) != 1 {
		t.Fatal("data_received and http_req_failed expected")
	}
}

func TestBodiesAndURLTemplate(t *testing.T) {
	srv := testServer(t)
	e := newEnv(t, `{"userAgent":"my-agent"}`)
	e.rt.Set("BASE", srv.URL)
	v := e.run(`
		const out = [];
		out.push(http.post(BASE + "/echo", { a: "1", b: "x y" }).body);
		out.push(http.put(BASE + "/echo", "raw text", { headers: { "Content-Type": "text/plain" } }).body);
		out.push(http.request("patch", BASE + "/echo", new Uint8Array([104, 105]).buffer).body);
		out.push(http.del(BASE + "/echo").body);
		const id = 42;
		out.push(http.get(http.url` + "`${BASE}/echo?id=${id}`" + `).body);
		out.push(http.post(BASE + "/multipart", { field: "v", file: http.file("content", "a.txt", "text/plain") }).body);
		const f = http.file("xyz");
		out.push(f.filename + "|" + f.content_type + "|" + f.data);
		out.join("\n")`)
	lines := strings.Split(v.String(), "\n")
	want := []string{
		"POST /echo ct=application/x-www-form-urlencoded ua=my-agent cookie= body=a=1&b=x+y",
		"PUT /echo ct=text/plain ua=my-agent cookie= body=raw text",
		"PATCH /echo ct= ua=my-agent cookie= body=hi",
		"DELETE /echo ct= ua=my-agent cookie= body=",
		"GET /echo?id=42 ct= ua=my-agent cookie= body=",
		"[field|||v][file|a.txt|text/plain|content]",
		"|application/octet-stream|xyz",
	}
	for i := range want {
		if i >= len(lines) || lines[i] != want[i] {
			t.Fatalf("line %d:\n got %q\nwant %q", i, lines[min(i, len(lines)-1)], want[i])
		}
	}
	var named bool
	for _, s := range e.sink.of("http_reqs") {
		if n, _ := s.Tags.Get("name"); n == "${}/echo?id=${}" {
			u, _ := s.Tags.Get("url")
			named = u == srv.URL+"/echo?id=42"
		}
	}
	if !named {
		t.Fatal("http.url should set the name tag to the template")
	}
}

func TestExpectedStatusesAndErrors(t *testing.T) {
	srv := testServer(t)
	e := newEnv(t, `{}`)
	e.rt.Set("BASE", srv.URL)
	e.run(`
		const r = http.get(BASE + "/status/404");
		if (r.status !== 404 || r.error_code !== 1404) throw new Error("404: " + r.error_code);
		http.setResponseCallback(http.expectedStatuses(404, { min: 200, max: 204 }));
		http.get(BASE + "/status/404");
		http.get(BASE + "/status/200", { responseCallback: http.expectedStatuses(201) });
		http.setResponseCallback(null);
		http.get(BASE + "/status/500");
	`)
	failed := e.sink.of("http_req_failed")
	if len(failed) != 3 || failed[0].Value != 1 || failed[1].Value != 0 || failed[2].Value != 1 {
		t.Fatalf("http_req_failed %v", failed)
	}
	last := e.sink.of("http_reqs")[3].Tags
	if _, ok := last.Get("expected_response"); ok {
		t.Fatal("no callback: no expected_response tag")
	}
	if c, _ := last.Get("error_code"); c != "1500" {
		t.Fatalf("error_code %q", c)
	}
	if err := e.runErr(`http.setResponseCallback((r) => true)`); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("a JS callback should be refused clearly: %v", err)
	}
	// A network error: a warning without throw, an exception with it.
	e.rt.Set("DEAD", "http://127.0.0.1:1/")
	v := e.run(`const d = http.get(DEAD); d.error_code + "|" + (d.error !== "") + "|" + d.status`)
	if v.String() != "1212|true|0" {
		t.Fatalf("refused connection: %s", v)
	}
	if len(e.logs) == 0 || !strings.Contains(e.logs[len(e.logs)-1], "Request Failed") {
		t.Fatalf("logs %v", e.logs)
	}
	te := newEnv(t, `{"throw":true}`)
	te.rt.Set("DEAD", "http://127.0.0.1:1/")
	if err := te.runErr(`http.get(DEAD)`); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("throw: %v", err)
	}
	if err := te.runErr(`http.get("http://127.0.0.1:1/", { timeout: "bogus" })`); err == nil {
		t.Fatal("bad timeout accepted")
	}
	if err := e.runErr(`http.get("not a url")`); err == nil {
		t.Fatal("bad URL accepted")
	}
}

func TestInitContextAndUnsupported(t *testing.T) {
	srv := testServer(t)
	e := newEnv(t, `{}`)
	e.rt.Set("BASE", srv.URL)
	e.vu.Init = true
	if err := e.runErr(`http.get(BASE + "/json")`); err == nil || !strings.Contains(err.Error(), "making requests in the init context is not supported") {
		t.Fatalf("init: %v", err)
	}
	e.vu.Init = false
	for _, src := range []string{
		`http.get(BASE + "/json").html()`,
		`http.get(BASE + "/json").submitForm()`,
		`http.get(BASE + "/json", { auth: "digest" })`,
		`http.post(BASE + "/echo", "x", { compression: "br" })`,
	} {
		err := e.runErr(src)
		if err == nil || !strings.Contains(err.Error(), "not supported by opsbench-engine") {
			t.Fatalf("%s: %v", src, err)
		}
	}
}

func TestResponseTypes(t *testing.T) {
	srv := testServer(t)
	e := newEnv(t, `{"discardResponseBodies":true}`)
	e.rt.Set("BASE", srv.URL)
	v := e.run(`
		const a = http.get(BASE + "/json");
		const b = http.get(BASE + "/json", { responseType: "binary" });
		const c = http.get(BASE + "/json", { responseType: "text" });
		[a.body === null, b.body instanceof ArrayBuffer, new Uint8Array(b.body)[0], typeof c.body].join(",")`)
	if v.String() != "true,true,123,string" {
		t.Fatalf("got %s", v)
	}
}

func TestBatch(t *testing.T) {
	var cur, peak atomic.Int64
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		n := cur.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(30 * time.Millisecond)
		cur.Add(-1)
		fmt.Fprintf(w, "%s %s", r.Method, r.URL.Path)
	}))
	defer srv.Close()
	e := newEnv(t, `{"batchPerHost":2}`)
	e.rt.Set("BASE", srv.URL)
	v := e.run(`
		const arr = http.batch([
			["GET", BASE + "/1", null, { tags: { n: "1" } }],
			{ method: "POST", url: BASE + "/2", body: "x" },
			BASE + "/3",
			["PUT", BASE + "/4"],
		]);
		const obj = http.batch({ first: BASE + "/a", second: { method: "DELETE", url: BASE + "/b" } });
		[arr.length, arr[0].body, arr[1].body, arr[2].body, arr[3].body, obj.first.body, obj.second.body].join("|")`)
	if v.String() != "4|GET /1|POST /2|GET /3|PUT /4|GET /a|DELETE /b" {
		t.Fatalf("got %s", v)
	}
	if peak.Load() != 2 {
		t.Fatalf("batchPerHost 2, peak %d", peak.Load())
	}
	if n := len(e.sink.of("http_reqs")); n != 6 {
		t.Fatalf("%d http_reqs", n)
	}
}

func TestCookies(t *testing.T) {
	srv := testServer(t)
	e := newEnv(t, `{}`)
	e.rt.Set("BASE", srv.URL)
	v := e.run(`
		const out = [];
		const r = http.get(BASE + "/setcookie");
		out.push(r.cookies.sid[0].value + ":" + r.cookies.sid[0].http_only);
		const jar = http.cookieJar();
		out.push(jar.cookiesForURL(BASE + "/").sid[0]);
		out.push(http.get(BASE + "/echo").body.split(" cookie=")[1].split(" body=")[0]);
		jar.set(BASE, "extra", "1");
		out.push(http.get(BASE + "/echo", { cookies: { sid: { value: "override", replace: true }, mine: "m" } }).body.split(" cookie=")[1].split(" body=")[0]);
		jar.delete(BASE, "sid");
		out.push(Object.keys(jar.cookiesForURL(BASE)).join("+"));
		jar.clear(BASE);
		out.push(Object.keys(jar.cookiesForURL(BASE)).length);
		const local = new http.CookieJar();
		local.set(BASE, "loc", "L");
		out.push(http.get(BASE + "/echo", { jar: local }).body.split(" cookie=")[1].split(" body=")[0]);
		out.push(http.get(BASE + "/redirect").url);
		out.join("\n")`)
	want := "abc:true\nabc\nsid=abc\nextra=1; sid=override; mine=m\nextra\n0\nloc=L\n" + srv.URL + "/json"
	if v.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", v, want)
	}
	// Cookies do not survive into the next iteration.
	e.run(`http.get(BASE + "/setcookie")`)
	e.vu.Counters.InInstance++
	if v := e.run(`http.get(BASE + "/echo").body.split(" cookie=")[1].split(" body=")[0]`); v.String() != "" {
		t.Fatalf("next iteration: %s", v)
	}
}

func TestAsyncRequest(t *testing.T) {
	srv := testServer(t)
	e := newEnv(t, `{}`)
	e.rt.Set("BASE", srv.URL)
	e.run(`
		var result = "";
		http.asyncRequest("GET", BASE + "/slow").then((r) => { result += r.body + r.status; });
		result += "sync;";
	`)
	if err := e.vu.Loop.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v := e.run(`result`); v.String() != "sync;slow200" {
		t.Fatalf("got %s", v)
	}
}

func TestAddressPolicyFromJS(t *testing.T) {
	srv := testServer(t)
	port := strings.TrimPrefix(srv.URL, "http://127.0.0.1:")
	e := newEnv(t, `{"blacklistIPs":["127.0.0.1/32"],"hosts":{"api.test":"127.0.0.1"},"blockHostnames":["*.bad.test"]}`)
	e.rt.Set("PORT", port)
	v := e.run(`[http.get("http://api.test:" + PORT + "/json").error_code, http.get("http://x.bad.test/").error_code].join(",")`)
	if v.String() != "1110,1111" {
		t.Fatalf("got %s", v)
	}
}

// BenchmarkJSGet measures a script's http.get plus a status check, per request.
func BenchmarkJSGet(b *testing.B) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	rt := sobek.New()
	vu := &modules.VUState{Runtime: rt, Registry: metrics.NewRegistry(), Samples: metrics.SinkFunc(func([]metrics.Sample) {}),
		Ctx: context.Background(), Tags: metrics.NewTags(map[string]string{"scenario": "default"})}
	obj, _ := New(vu)
	rt.Set("http", obj)
	rt.Set("URL", srv.URL)
	fn, err := rt.RunString(`(function() { const r = http.get(URL); if (r.status !== 200) throw new Error("bad"); })`)
	if err != nil {
		b.Fatal(err)
	}
	call, _ := sobek.AssertFunction(fn)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := call(sobek.Undefined()); err != nil {
			b.Fatal(err)
		}
	}
}
