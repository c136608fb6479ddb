package netclient

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func newClient(t testing.TB, optsJSON string) *Client {
	t.Helper()
	o, err := ParseOptions(json.RawMessage(optsJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(NewShared(o))
	t.Cleanup(c.Close)
	return c
}

// connCounter counts the TCP connections a test server accepts.
func connCounter(srv *httptest.Server) *atomic.Int64 {
	var n atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			n.Add(1)
		}
	}
	return &n
}

func TestGetTimingsBytesAndReuse(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("X-Test", "yes")
		io.WriteString(w, "hello world")
	}))
	conns := connCounter(srv)
	srv.Start()
	defer srv.Close()
	c := newClient(t, `{}`)
	for i := range 3 {
		resp, err := c.Do(context.Background(), &Request{Method: "GET", URL: mustURL(t, srv.URL+"/x?a=1")})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 200 || string(resp.Body) != "hello world" || resp.StatusText != "200 OK" || resp.Proto != "HTTP/1.1" {
			t.Fatalf("unexpected response %d %q %q %q", resp.Status, resp.StatusText, resp.Proto, resp.Body)
		}
		if resp.Header().Get("X-Test") != "yes" {
			t.Fatalf("headers: %v", resp.Header())
		}
		tm := resp.Timings
		if tm.Duration != tm.Sending+tm.Waiting+tm.Receiving {
			t.Fatalf("duration %v != sending+waiting+receiving %v", tm.Duration, tm.Sending+tm.Waiting+tm.Receiving)
		}
		if tm.Waiting < 20*time.Millisecond {
			t.Fatalf("waiting %v should include the server's 20ms", tm.Waiting)
		}
		if i == 0 && tm.Connecting <= 0 {
			t.Fatalf("first request should connect: %+v", tm)
		}
		if i > 0 && tm.Connecting != 0 {
			t.Fatalf("reused connection should not connect: %+v", tm)
		}
		if tm.Blocked < tm.Connecting {
			t.Fatalf("blocked %v should include connecting %v", tm.Blocked, tm.Connecting)
		}
		if resp.RemoteIP != "127.0.0.1" || resp.RemotePort == 0 {
			t.Fatalf("remote %s:%d", resp.RemoteIP, resp.RemotePort)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections, want 1 (keep-alive)", n)
	}
	sent, received := c.TakeTraffic()
	// Each request line+headers is > 50 bytes, each response > 100 bytes.
	if sent < 3*50 || received < 3*100 {
		t.Fatalf("traffic sent=%d received=%d", sent, received)
	}
	if s, r := c.TakeTraffic(); s != 0 || r != 0 {
		t.Fatalf("TakeTraffic should reset: %d %d", s, r)
	}
}

func TestExactByteCount(t *testing.T) {
	const reply = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var gotReq atomic.Int64
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, 4096)
		n, _ := conn.Read(buf)
		gotReq.Store(int64(n))
		conn.Write([]byte(reply))
		time.Sleep(100 * time.Millisecond)
	}()
	c := newClient(t, `{"userAgent":"ua"}`)
	resp, err := c.Do(context.Background(), &Request{Method: "GET", URL: mustURL(t, "http://"+ln.Addr().String()+"/")})
	if err != nil || string(resp.Body) != "hello" {
		t.Fatalf("%v %q", err, resp.Body)
	}
	sent, received := c.TakeTraffic()
	if sent != gotReq.Load() || received != int64(len(reply)) {
		t.Fatalf("sent=%d (server read %d) received=%d want %d", sent, gotReq.Load(), received, len(reply))
	}
}

func TestNoConnectionReuse(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	conns := connCounter(srv)
	srv.Start()
	defer srv.Close()
	c := newClient(t, `{"noConnectionReuse":true}`)
	for range 3 {
		if _, err := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 3 {
		t.Fatalf("%d connections, want 3", n)
	}
	c2 := newClient(t, `{"noVUConnectionReuse":true}`)
	before := conns.Load()
	for range 2 {
		c2.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
		c2.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
		c2.IterationEnd()
	}
	if n := conns.Load() - before; n != 2 {
		t.Fatalf("%d connections for 2 iterations of 2 requests, want 2", n)
	}
}

func TestServerClosedIdleConnIsRetried(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	c := newClient(t, `{}`)
	if _, err := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)}); err != nil {
		t.Fatal(err)
	}
	srv.CloseClientConnections()
	time.Sleep(20 * time.Millisecond)
	resp, err := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
	if err != nil || resp.Status != 200 {
		t.Fatalf("retry on a fresh connection expected: %v %d", err, resp.Status)
	}
}

func TestBodiesChunkedPostAndDiscard(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fl := w.(http.Flusher)
		fmt.Fprintf(w, "%s|%s|%s|", r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"))
		fl.Flush() // forces chunked encoding
		w.Write(b)
	}))
	defer srv.Close()
	c := newClient(t, `{}`)
	resp, err := c.Do(context.Background(), &Request{Method: "POST", URL: mustURL(t, srv.URL),
		Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte(strings.Repeat("x", 100000))})
	if err != nil {
		t.Fatal(err)
	}
	want := "POST|text/plain|" + DefaultUserAgent + "|" + strings.Repeat("x", 100000)
	if string(resp.Body) != want {
		t.Fatalf("body len %d, want %d; head %q", len(resp.Body), len(want), resp.Body[:min(60, len(resp.Body))])
	}
	resp, err = c.Do(context.Background(), &Request{Method: "POST", URL: mustURL(t, srv.URL), Body: []byte("abc"), DiscardBody: true})
	if err != nil || resp.Body != nil || resp.Status != 200 {
		t.Fatalf("discard: %v %q", err, resp.Body)
	}
	// The connection stays usable after a discarded chunked body.
	resp, err = c.Do(context.Background(), &Request{Method: "HEAD", URL: mustURL(t, srv.URL)})
	if err != nil || resp.Status != 200 || len(resp.Body) != 0 {
		t.Fatalf("head: %v %d", err, resp.Status)
	}
}

func TestStatusErrorCode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	c := newClient(t, `{}`)
	resp, err := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
	if err != nil || resp.Status != 503 || resp.ErrorCode != 1503 || resp.Error != "" {
		t.Fatalf("%v %d %d %q", err, resp.Status, resp.ErrorCode, resp.Error)
	}
}

func TestRedirects(t *testing.T) {
	var mux http.ServeMux
	mux.HandleFunc("/r/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			fmt.Fprintf(w, "done %s", r.Method)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
	})
	srv := httptest.NewServer(&mux)
	defer srv.Close()
	c := newClient(t, `{"maxRedirects":3}`)
	resp, err := c.Do(context.Background(), &Request{Method: "POST", URL: mustURL(t, srv.URL+"/r/3"), Body: []byte("x")})
	if err != nil || resp.Status != 200 || string(resp.Body) != "done GET" || len(resp.Redirects) != 3 {
		t.Fatalf("%v %d %q hops=%d", err, resp.Status, resp.Body, len(resp.Redirects))
	}
	if resp.URL.Path != "/r/0" || resp.Redirects[0].Status != 302 || resp.Redirects[0].URL.Path != "/r/3" {
		t.Fatalf("final %s first hop %d %s", resp.URL, resp.Redirects[0].Status, resp.Redirects[0].URL)
	}
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/r/4")})
	if resp.Status != 302 || !resp.RedirectLimitHit || len(resp.Redirects) != 3 {
		t.Fatalf("over the option's limit: %d %v %d", resp.Status, resp.RedirectLimitHit, len(resp.Redirects))
	}
	zero := 0
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/r/1"), Redirects: &zero})
	if resp.Status != 302 || len(resp.Redirects) != 0 {
		t.Fatalf("redirects: 0 must not follow: %d", resp.Status)
	}
}

func TestCookies(t *testing.T) {
	var mux http.ServeMux
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "a", Value: "1"})
		http.SetCookie(w, &http.Cookie{Name: "b", Value: "2", Path: "/only"})
		http.Redirect(w, r, "/show", http.StatusFound)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Header.Get("Cookie")) })
	srv := httptest.NewServer(&mux)
	defer srv.Close()
	c := newClient(t, `{}`)
	resp, _ := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/set")})
	if string(resp.Body) != "a=1" {
		t.Fatalf("cookie set on the redirect should be sent to its target: %q", resp.Body)
	}
	if len(resp.Redirects) != 1 || len(resp.Redirects[0].Cookies) != 2 {
		t.Fatalf("the redirect hop carries its Set-Cookie: %+v", resp.Redirects)
	}
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/only/x")})
	if string(resp.Body) != "b=2; a=1" {
		t.Fatalf("longer path first: %q", resp.Body)
	}
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/"), Cookies: []RequestCookie{{Name: "a", Value: "x"}, {Name: "c", Value: "3"}}})
	if string(resp.Body) != "a=1; c=3" {
		t.Fatalf("jar wins without replace: %q", resp.Body)
	}
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/"), Cookies: []RequestCookie{{Name: "a", Value: "x", Replace: true}}})
	if string(resp.Body) != "a=x" {
		t.Fatalf("replace: %q", resp.Body)
	}
	c.IterationEnd()
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/")})
	if string(resp.Body) != "" {
		t.Fatalf("jar should be reset between iterations: %q", resp.Body)
	}
	keep := newClient(t, `{"noCookiesReset":true}`)
	keep.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/set")})
	keep.IterationEnd()
	resp, _ = keep.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/")})
	if string(resp.Body) != "a=1" {
		t.Fatalf("noCookiesReset keeps cookies: %q", resp.Body)
	}
}

func TestJar(t *testing.T) {
	j := NewJar()
	u := mustURL(t, "https://sub.example.com/api/x")
	j.Set(u, &http.Cookie{Name: "host", Value: "1"})
	j.Set(u, &http.Cookie{Name: "dom", Value: "2", Domain: ".example.com"})
	j.Set(u, &http.Cookie{Name: "sec", Value: "3", Secure: true})
	if ok := j.Set(u, &http.Cookie{Name: "evil", Value: "x", Domain: "other.com"}); ok {
		t.Fatal("a cookie for another domain must be refused")
	}
	names := func(u *url.URL) string {
		var s []string
		for _, c := range j.Cookies(u) {
			s = append(s, c.Name)
		}
		return strings.Join(s, ",")
	}
	if got := names(mustURL(t, "https://sub.example.com/api/y")); got != "host,dom,sec" {
		t.Fatalf("got %q", got)
	}
	if got := names(mustURL(t, "http://other.example.com/api")); got != "dom" {
		t.Fatalf("domain cookie only, no secure over http: %q", got)
	}
	j.Delete(u, "host")
	if got := names(u); got != "dom,sec" {
		t.Fatalf("after delete %q", got)
	}
	j.Set(u, &http.Cookie{Name: "dom", Value: "2", Domain: "example.com", MaxAge: -1})
	if got := names(u); got != "sec" {
		t.Fatalf("max-age<0 deletes: %q", got)
	}
	j.Clear(u)
	if got := names(u); got != "" {
		t.Fatalf("after clear %q", got)
	}
}

func TestAddressPolicy(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := mustURL(t, srv.URL).Port()

	c := newClient(t, `{"blacklistIPs":["127.0.0.0/8"],"hosts":{"app.test":"127.0.0.1"}}`)
	resp, err := c.Do(context.Background(), &Request{URL: mustURL(t, "http://app.test:"+port+"/")})
	if err == nil || resp.ErrorCode != CodeBlacklistedIP || !strings.Contains(resp.Error, "127.0.0.0/8") {
		t.Fatalf("hosts-mapped name resolving to a blacklisted IP must be refused: %v %d %q", err, resp.ErrorCode, resp.Error)
	}
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
	if resp.ErrorCode != CodeBlacklistedIP {
		t.Fatalf("literal IP: %d", resp.ErrorCode)
	}

	// A name whose DNS answer is blacklisted is refused too (the check is after resolution).
	c.shared.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, "http://rebind.test:"+port+"/")})
	if resp.ErrorCode != CodeBlacklistedIP {
		t.Fatalf("DNS answer: %d %q", resp.ErrorCode, resp.Error)
	}

	b := newClient(t, `{"blockHostnames":["*.blocked.test","exact.test"],"hosts":{"ok.blocked2.test":"127.0.0.1","*.wild.test:1":"127.0.0.1:`+port+`"}}`)
	for _, h := range []string{"a.blocked.test", "a.b.blocked.test", "EXACT.test"} {
		resp, _ = b.Do(context.Background(), &Request{URL: mustURL(t, "http://"+h+":"+port+"/")})
		if resp.ErrorCode != CodeBlockedHostname {
			t.Fatalf("%s: %d %q", h, resp.ErrorCode, resp.Error)
		}
	}
	resp, _ = b.Do(context.Background(), &Request{URL: mustURL(t, "http://ok.blocked2.test:"+port+"/")})
	if resp.Status != 200 {
		t.Fatalf("hosts mapping: %d %q", resp.Status, resp.Error)
	}
	resp, _ = b.Do(context.Background(), &Request{URL: mustURL(t, "http://x.y.wild.test:1/")})
	if resp.Status != 200 {
		t.Fatalf("wildcard hosts mapping with port: %d %q", resp.Status, resp.Error)
	}
	if hits.Load() != 2 {
		t.Fatalf("server hit %d times, want 2", hits.Load())
	}
}

func TestErrorsAndTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(300 * time.Millisecond) }))
	defer srv.Close()
	c := newClient(t, `{}`)
	resp, err := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL), Timeout: 50 * time.Millisecond})
	if err == nil || resp.ErrorCode != CodeTimeout || resp.Error != "request timeout" {
		t.Fatalf("timeout: %v %d %q", err, resp.ErrorCode, resp.Error)
	}
	if resp.Timings.End.Sub(resp.Timings.Start) > 250*time.Millisecond {
		t.Fatalf("timeout took %v", resp.Timings.End.Sub(resp.Timings.Start))
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, "http://"+addr+"/")})
	if resp.ErrorCode != CodeDialRefused {
		t.Fatalf("refused: %d %q", resp.ErrorCode, resp.Error)
	}
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, "ftp://x/")})
	if resp.ErrorCode != CodeInvalidURL {
		t.Fatalf("invalid URL: %d", resp.ErrorCode)
	}
	c.shared.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, "http://nx.test/")})
	if resp.ErrorCode != CodeDNSNoIP {
		t.Fatalf("dns: %d %q", resp.ErrorCode, resp.Error)
	}
	// A context that ends aborts the request in flight.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	resp, _ = c.Do(ctx, &Request{URL: mustURL(t, srv.URL)})
	if !resp.Aborted {
		t.Fatalf("abort: %+v", resp.Error)
	}
}

func TestBatchLimits(t *testing.T) {
	var cur, peak atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		cur.Add(-1)
		io.WriteString(w, r.URL.Path)
	}))
	defer srv.Close()
	c := newClient(t, `{}`)
	var reqs []*Request
	for i := range 12 {
		reqs = append(reqs, &Request{URL: mustURL(t, fmt.Sprintf("%s/%d", srv.URL, i))})
	}
	var doneCount atomic.Int64
	resps := c.DoBatch(context.Background(), reqs, 20, 3, func(int, *Response) { doneCount.Add(1) })
	for i, r := range resps {
		if string(r.Body) != fmt.Sprintf("/%d", i) {
			t.Fatalf("response %d out of order: %q", i, r.Body)
		}
	}
	if peak.Load() != 3 || doneCount.Load() != 12 {
		t.Fatalf("peak parallelism %d, want 3 (batchPerHost); done %d", peak.Load(), doneCount.Load())
	}
	peak.Store(0)
	c.DoBatch(context.Background(), reqs, 5, 0, nil)
	if peak.Load() != 5 {
		t.Fatalf("peak parallelism %d, want 5 (batch)", peak.Load())
	}
}

func TestHTTP2(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "h2", Value: "yes"})
		fmt.Fprintf(w, "%s %s", r.Proto, r.Header.Get("Cookie"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	c := newClient(t, `{"insecureSkipTLSVerify":true}`)
	resp, err := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
	if err != nil || resp.Proto != "HTTP/2.0" || string(resp.Body) != "HTTP/2.0 " {
		t.Fatalf("%v %q %q", err, resp.Proto, resp.Body)
	}
	if resp.Timings.TLSHandshaking <= 0 || resp.Timings.Connecting <= 0 || resp.TLSVersion != "tls1.3" {
		t.Fatalf("first h2 request timings %+v tls %q", resp.Timings, resp.TLSVersion)
	}
	resp, err = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
	if err != nil || string(resp.Body) != "HTTP/2.0 h2=yes" || resp.Timings.TLSHandshaking != 0 {
		t.Fatalf("second: %v %q %+v", err, resp.Body, resp.Timings)
	}
	strict := newClient(t, `{}`)
	resp, _ = strict.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
	if resp.ErrorCode != CodeTLSUnknownAuthority {
		t.Fatalf("untrusted certificate: %d %q", resp.ErrorCode, resp.Error)
	}
}

func TestHTTP1OverTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }))
	defer srv.Close()
	c := newClient(t, `{"insecureSkipTLSVerify":true}`)
	resp, err := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL)})
	if err != nil || resp.Proto != "HTTP/1.1" || string(resp.Body) != "HTTP/1.1" || resp.Timings.TLSHandshaking <= 0 {
		t.Fatalf("%v %q %q %+v", err, resp.Proto, resp.Body, resp.Timings)
	}
}

type collect struct {
	mu sync.Mutex
	s  []metrics.Sample
}

func (c *collect) AddSamples(s []metrics.Sample) {
	c.mu.Lock()
	c.s = append(c.s, s...)
	c.mu.Unlock()
}

func (c *collect) byMetric(name string) []metrics.Sample {
	var out []metrics.Sample
	for _, s := range c.s {
		if s.Metric.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func TestEmitSamples(t *testing.T) {
	var mux http.ServeMux
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", 301) })
	srv := httptest.NewServer(&mux)
	defer srv.Close()
	reg := metrics.NewRegistry()
	c := newClient(t, `{}`)
	em := NewEmitter(reg, c.Options())
	base := metrics.NewTags(map[string]string{"scenario": "default", "group": ""})
	sink := &collect{}

	resp, _ := c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/ok")})
	em.Emit(sink, base, resp, &SampleInfo{Expected: DefaultExpectedStatuses}, c)
	if n := len(sink.s); n != 11 {
		t.Fatalf("%d samples, want 11", n)
	}
	d := sink.byMetric("http_req_duration")[0]
	want := map[string]string{"scenario": "default", "group": "", "name": srv.URL + "/ok", "url": srv.URL + "/ok",
		"method": "GET", "status": "200", "proto": "HTTP/1.1", "expected_response": "true"}
	if got := d.Tags.Map(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("tags %v, want %v", got, want)
	}
	if f := sink.byMetric("http_req_failed")[0]; f.Value != 0 {
		t.Fatalf("http_req_failed %v", f.Value)
	}
	if ds := sink.byMetric("data_received")[0]; ds.Value < 50 {
		t.Fatalf("data_received %v", ds.Value)
	}
	// The same kind of request reuses the TagSet.
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/ok")})
	em.Emit(sink, base, resp, &SampleInfo{Expected: DefaultExpectedStatuses}, c)
	if a, b := sink.byMetric("http_reqs")[0].Tags, sink.byMetric("http_reqs")[1].Tags; a != b {
		t.Fatal("TagSet not reused")
	}

	sink.s = nil
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/missing")})
	em.Emit(sink, base, resp, &SampleInfo{Name: "named", Tags: map[string]string{"k": "v"}, Expected: DefaultExpectedStatuses}, c)
	tags := sink.byMetric("http_reqs")[0].Tags
	if v, _ := tags.Get("error_code"); v != "1404" {
		t.Fatalf("error_code %q", v)
	}
	if v, _ := tags.Get("name"); v != "named" {
		t.Fatalf("name %q", v)
	}
	if v, _ := tags.Get("k"); v != "v" {
		t.Fatalf("user tag %q", v)
	}
	if v, _ := tags.Get("expected_response"); v != "false" || sink.byMetric("http_req_failed")[0].Value != 1 {
		t.Fatalf("expected_response %q", v)
	}

	sink.s = nil
	resp, _ = c.Do(context.Background(), &Request{URL: mustURL(t, srv.URL+"/moved")})
	em.Emit(sink, base, resp, &SampleInfo{Expected: NewExpectedStatuses([2]int{200, 200})}, c)
	reqs := sink.byMetric("http_reqs")
	if len(reqs) != 2 {
		t.Fatalf("a redirect chain emits per hop: %d", len(reqs))
	}
	if v, _ := reqs[0].Tags.Get("status"); v != "301" {
		t.Fatalf("first hop status %q", v)
	}
	if f := sink.byMetric("http_req_failed"); f[0].Value != 1 || f[1].Value != 0 {
		t.Fatalf("the 301 is unexpected with expectedStatuses(200): %v %v", f[0].Value, f[1].Value)
	}

	sink.s = nil
	em.Emit(sink, base, resp, &SampleInfo{}, nil)
	if len(sink.byMetric("http_req_failed")) != 0 {
		t.Fatal("no callback, no http_req_failed")
	}
	if _, ok := sink.byMetric("http_reqs")[0].Tags.Get("expected_response"); ok {
		t.Fatal("no callback, no expected_response tag")
	}
}

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions(json.RawMessage(`{"userAgent":"","maxRedirects":2,"batch":3,"batchPerHost":1,
		"blacklistIPs":["10.0.0.0/8","1.2.3.4"],"blockHostnames":"a.com,*.b.com","tlsVersion":{"min":"tls1.2","max":"tls1.3"},
		"systemTags":["status","url"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.UserAgent != "" || o.MaxRedirects != 2 || o.Batch != 3 || o.BatchPerHost != 1 || len(o.BlacklistIPs) != 2 ||
		len(o.BlockHostnames) != 2 || o.TLSMinVersion == 0 || o.TLSMaxVersion == 0 || len(o.SystemTags) != 2 {
		t.Fatalf("%+v", o)
	}
	if _, err := ParseOptions(json.RawMessage(`{"blacklistIPs":["nope"]}`)); err == nil {
		t.Fatal("bad CIDR accepted")
	}
	d, _ := ParseOptions(nil)
	if d.UserAgent != DefaultUserAgent || d.MaxRedirects != 10 || d.Batch != 20 || d.BatchPerHost != 6 {
		t.Fatalf("defaults %+v", d)
	}
}

func TestLongHeaderAndInterimResponse(t *testing.T) {
	long := strings.Repeat("v", 20000)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, 4096)
		conn.Read(buf)
		io.WriteString(conn, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n")
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nX-Long: "+long+"\r\nContent-Length: 2\r\n\r\nok")
	}()
	c := newClient(t, `{}`)
	resp, err := c.Do(context.Background(), &Request{URL: mustURL(t, "http://"+ln.Addr().String()+"/")})
	if err != nil || resp.Status != 200 || resp.Header().Get("X-Long") != long || string(resp.Body) != "ok" {
		t.Fatalf("%v %d %d %q", err, resp.Status, len(resp.Header().Get("X-Long")), resp.Body)
	}
}

func TestBasicAuthAndGzip(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		fmt.Fprintf(gz, "%s:%s", u, p)
		gz.Close()
	}))
	defer srv.Close()
	c := newClient(t, `{}`)
	u := mustURL(t, srv.URL)
	u.User = url.UserPassword("bob", "s3cret")
	resp, err := c.Do(context.Background(), &Request{URL: u, Header: http.Header{"Accept-Encoding": {"gzip"}}})
	if err != nil || string(resp.Body) != "bob:s3cret" {
		t.Fatalf("%v %q", err, resp.Body)
	}
	if got := resp.RequestHeader().Get("Authorization"); !strings.HasPrefix(got, "Basic ") {
		t.Fatalf("request headers %v", resp.RequestHeader())
	}
}

// tcpServer accepts TCP connections on loopback and hands each to serve (its own goroutine; the connection is closed
// when serve returns): for servers that misbehave in ways net/http will not. It returns the address and a count of
// the connections accepted.
func tcpServer(t *testing.T, serve func(conn net.Conn, br *bufio.Reader)) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer conn.Close()
				serve(conn, bufio.NewReader(conn))
			}()
		}
	}()
	return ln.Addr().String(), &accepted
}

// A request that says "Connection: close" gets a new connection next time, even from a server that would keep it.
func TestRequestConnectionCloseEndsTheConnection(t *testing.T) {
	addr, accepted := tcpServer(t, func(conn net.Conn, br *bufio.Reader) {
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			// Always keep-alive, whatever the request asked.
			io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
		}
	})
	c := newClient(t, `{}`)
	u := mustURL(t, "http://"+addr+"/")
	closing := http.Header{"Connection": []string{"close"}}
	for _, h := range []http.Header{nil, nil, closing, nil} {
		if r, err := c.Do(context.Background(), &Request{URL: u, Header: h}); err != nil || r.Status != 200 {
			t.Fatalf("status %d, %v", r.Status, err)
		}
	}
	if n := accepted.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (the one closed by the third request, then a new one)", n)
	}
}

// A server that takes a request on a kept-alive connection and dies without answering: a POST is not sent again
// (it may have been acted on), and the failure is counted; a GET goes again on a new connection.
func TestRequestTakenThenConnectionDropped(t *testing.T) {
	var posts atomic.Int64
	addr, _ := tcpServer(t, func(conn net.Conn, br *bufio.Reader) {
		for n := 0; ; n++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			if req.Method == "POST" {
				posts.Add(1)
			}
			if n == 1 { // the second request on a connection: taken, never answered
				return
			}
			io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	u := mustURL(t, "http://"+addr+"/")
	c := newClient(t, `{}`)
	c.Do(context.Background(), &Request{URL: u})
	r, _ := c.Do(context.Background(), &Request{Method: "POST", URL: u, Body: []byte("x")})
	if r.Error == "" || posts.Load() != 1 {
		t.Fatalf("POST: error %q, received %d times; want an error and once", r.Error, posts.Load())
	}
	c.Do(context.Background(), &Request{URL: u})
	if r, _ := c.Do(context.Background(), &Request{URL: u}); r.Status != 200 {
		t.Fatalf("GET after a dropped connection: status %d, error %q", r.Status, r.Error)
	}
}
