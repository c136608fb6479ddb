package netclient

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout is k6's default request timeout.
const DefaultTimeout = 60 * time.Second

// maxIdlePerHost bounds the idle connections a VU keeps to one host.
const maxIdlePerHost = 64

// Request is one HTTP request. The client never changes it, so a caller may
// reuse one Request (and its Header) for many calls.
type Request struct {
	Method string
	URL    *url.URL
	// Header holds the request's own headers (canonical keys); a "Host" entry overrides the Host header.
	Header http.Header
	Body   []byte
	// Timeout bounds the whole request, redirects included; 0 means 60s.
	Timeout time.Duration
	// Redirects is how many redirects to follow; nil means the maxRedirects option.
	Redirects *int
	// DiscardBody reads the body off the wire without keeping it (responseType "none").
	DiscardBody bool
	// Jar replaces the VU's cookie jar for this request; nil uses the VU's.
	Jar *Jar
	// Cookies are request-scoped cookies: sent, never stored. Replace lets one win over a jar cookie of the same name.
	Cookies []RequestCookie
}

type RequestCookie struct {
	Name, Value string
	Replace     bool
}

// Timings are k6's http_req_* phases of one request.
type Timings struct {
	Blocked, Connecting, TLSHandshaking time.Duration
	Sending, Waiting, Receiving         time.Duration
	// Duration is Sending + Waiting + Receiving.
	Duration time.Duration
	// Start is when the request began, End when its last byte arrived (or it failed).
	Start, End time.Time
}

// Response is the outcome of a request; on a redirect chain it describes the
// last hop and Redirects holds the earlier ones.
type Response struct {
	Method      string
	URL         *url.URL
	RequestBody []byte
	// RequestCookies are the cookies sent (jar and request-scoped).
	RequestCookies []RequestCookie

	Status     int
	StatusText string // as k6 has it: "200 OK"
	Proto      string // "HTTP/1.1", "HTTP/2.0"
	Body       []byte // nil when discarded
	// Cookies are the cookies the response set.
	Cookies []*http.Cookie
	Timings Timings

	RemoteIP       string
	RemotePort     int
	TLSVersion     string // "tls1.3"
	TLSCipherSuite string

	// Error and ErrorCode describe a failure (ErrorCode also carries 1000+status for 4xx/5xx).
	Error     string
	ErrorCode int
	// Aborted is true when the request was cut short because its context ended (the VU was stopped).
	Aborted bool
	// Redirects are the earlier hops of a redirect chain, oldest first (their bodies are dropped).
	Redirects []*Response
	// RedirectLimitHit is true when the response is a redirect left unfollowed because of the redirect limit.
	RedirectLimitHit bool

	reqHeader http.Header
	reqExtra  [][2]string // headers the client added (Host, User-Agent, Cookie, Content-Length)
	header    http.Header
	rawHeader string
}

// Header returns the response headers (canonical keys).
func (r *Response) Header() http.Header {
	if r.header == nil {
		r.header = parseRawHeader(r.rawHeader)
	}
	return r.header
}

// RequestHeader returns the headers sent with the request, including those the client added.
func (r *Response) RequestHeader() http.Header {
	h := make(http.Header, len(r.reqHeader)+len(r.reqExtra))
	for k, v := range r.reqHeader {
		h[k] = v
	}
	for _, kv := range r.reqExtra {
		h[kv[0]] = []string{kv[1]}
	}
	return h
}

type connKey struct {
	https bool
	host  string // URL host, with the port when the URL has one
}

// Client is one VU's HTTP client: its connections, its cookie jar and its traffic counters.
// Do may be called concurrently (http.batch).
type Client struct {
	shared    *Shared
	tlsConfig *tls.Config
	jar       *Jar
	traffic   traffic

	mu        sync.Mutex
	idle      map[connKey][]*h1conn
	active    map[*h1conn]struct{}
	h2hosts   map[connKey]bool
	preDialed map[string]*dialed
	h2        *http.Transport

	watchMu   sync.Mutex
	watchCtx  context.Context
	stopWatch func() bool
}

// NewClient makes a VU's client.
func NewClient(s *Shared) *Client {
	o := s.Opts
	c := &Client{
		shared: s,
		tlsConfig: &tls.Config{
			InsecureSkipVerify: o.InsecureSkipTLSVerify, //nolint:gosec // the user's documented choice
			MinVersion:         o.TLSMinVersion,
			MaxVersion:         o.TLSMaxVersion,
			NextProtos:         []string{"h2", "http/1.1"},
			ClientSessionCache: tls.NewLRUClientSessionCache(32),
		},
		jar:       NewJar(),
		idle:      map[connKey][]*h1conn{},
		active:    map[*h1conn]struct{}{},
		h2hosts:   map[connKey]bool{},
		preDialed: map[string]*dialed{},
	}
	if c.tlsConfig.MinVersion == 0 {
		c.tlsConfig.MinVersion = tls.VersionTLS10
	}
	c.h2 = &http.Transport{
		DialTLSContext:      c.dialForTransport,
		ForceAttemptHTTP2:   true,
		DisableCompression:  true,
		DisableKeepAlives:   o.NoConnectionReuse,
		MaxIdleConnsPerHost: maxIdlePerHost,
		IdleConnTimeout:     90 * time.Second,
	}
	return c
}

// Options are the options the client was made with.
func (c *Client) Options() *Options { return c.shared.Opts }

// Jar is the VU's cookie jar.
func (c *Client) Jar() *Jar { return c.jar }

// TakeTraffic returns the bytes sent and received on the wire since the last call.
func (c *Client) TakeTraffic() (sent, received int64) {
	return c.traffic.sent.Swap(0), c.traffic.received.Swap(0)
}

// IterationEnd does what k6 does between a VU's iterations: empty the cookie jar
// (unless noCookiesReset) and drop the connections (if noVUConnectionReuse).
func (c *Client) IterationEnd() {
	o := c.shared.Opts
	if !o.NoCookiesReset {
		c.jar.Reset()
	}
	if o.NoVUConnectionReuse {
		c.CloseIdle()
	}
}

// CloseIdle closes the connections not in use.
func (c *Client) CloseIdle() {
	c.mu.Lock()
	idle := c.idle
	c.idle = map[connKey][]*h1conn{}
	c.mu.Unlock()
	for _, list := range idle {
		for _, pc := range list {
			pc.close()
		}
	}
	c.h2.CloseIdleConnections()
	c.mu.Lock()
	for addr, d := range c.preDialed {
		d.conn.Close()
		delete(c.preDialed, addr)
	}
	c.mu.Unlock()
}

// Close closes every connection of the client.
func (c *Client) Close() {
	c.CloseIdle()
	c.abortActive()
	c.watchMu.Lock()
	if c.stopWatch != nil {
		c.stopWatch()
		c.stopWatch = nil
	}
	c.watchCtx = nil
	c.watchMu.Unlock()
}

// watch makes the end of ctx abort the requests in flight; registered once per context, not per request.
func (c *Client) watch(ctx context.Context) {
	if ctx.Done() == nil {
		return
	}
	c.watchMu.Lock()
	if ctx != c.watchCtx {
		if c.stopWatch != nil {
			c.stopWatch()
		}
		c.watchCtx = ctx
		c.stopWatch = context.AfterFunc(ctx, c.abortActive)
	}
	c.watchMu.Unlock()
}

func (c *Client) abortActive() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for pc := range c.active {
		_ = pc.conn.SetDeadline(time.Unix(1, 0))
	}
}

func isRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// hop is one request of a redirect chain.
type hop struct {
	method  string
	u       *url.URL
	header  http.Header
	body    []byte
	cookies []RequestCookie
	discard bool
}

// Do sends the request, following redirects. It always returns a Response;
// the error (an *Error, also described by Response.Error/ErrorCode) is set when
// the request failed short of an HTTP response.
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c.watch(ctx)
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	deadline := time.Now().Add(timeout)
	maxRedirects := c.shared.Opts.MaxRedirects
	if req.Redirects != nil {
		maxRedirects = *req.Redirects
	}
	jar := req.Jar
	if jar == nil {
		jar = c.jar
	}
	h := hop{method: req.Method, u: req.URL, header: req.Header, body: req.Body, discard: req.DiscardBody}
	if h.method == "" {
		h.method = http.MethodGet
	}
	// The process's bound on requests in flight (inflight.go): the slot is held for the whole redirect chain.
	release, ok := acquireInFlight(ctx)
	if !ok {
		resp := failed(&h, time.Now(), ctx.Err(), ctx)
		return resp, &Error{Code: resp.ErrorCode, Msg: resp.Error}
	}
	defer release()
	var hops []*Response
	for {
		if h.u == nil || (h.u.Scheme != "http" && h.u.Scheme != "https") || h.u.Host == "" {
			resp := &Response{Method: h.method, URL: h.u, Timings: Timings{Start: time.Now(), End: time.Now()}}
			what := "<nil>"
			if h.u != nil {
				what = h.u.String()
			}
			e := newError(CodeInvalidURL, fmt.Sprintf("unsupported or invalid URL %q: only http and https URLs with a host can be requested", what), nil)
			resp.Error, resp.ErrorCode = e.Msg, e.Code
			resp.Redirects = hops
			return resp, e
		}
		h.cookies = mergeCookies(jar.Cookies(h.u), req.Cookies)
		resp := c.roundTrip(ctx, deadline, &h)
		if resp.ErrorCode != 0 && resp.Status == 0 {
			resp.Redirects = hops
			return resp, &Error{Code: resp.ErrorCode, Msg: resp.Error}
		}
		if len(resp.Cookies) > 0 {
			jar.SetCookies(h.u, resp.Cookies)
		}
		if !isRedirect(resp.Status) {
			resp.Redirects = hops
			return resp, nil
		}
		loc := resp.Header().Get("Location")
		if loc == "" {
			resp.Redirects = hops
			return resp, nil
		}
		if len(hops) >= maxRedirects {
			resp.RedirectLimitHit = maxRedirects > 0
			resp.Redirects = hops
			return resp, nil
		}
		next, err := h.u.Parse(loc)
		if err != nil {
			resp.Redirects = hops
			return resp, nil
		}
		resp.Body = nil
		hops = append(hops, resp)
		if resp.Status == 301 || resp.Status == 302 || resp.Status == 303 {
			if h.method != http.MethodHead {
				h.method = http.MethodGet
			}
			if h.body != nil {
				h.body = nil
				h.header = withoutHeaders(h.header, "Content-Type", "Content-Length")
			}
		}
		if next.Host != h.u.Host {
			h.header = withoutHeaders(h.header, "Authorization")
		}
		h.u = next
	}
}

func withoutHeaders(h http.Header, names ...string) http.Header {
	drop := false
	for _, n := range names {
		if _, ok := h[n]; ok {
			drop = true
		}
	}
	if !drop {
		return h
	}
	out := h.Clone()
	for _, n := range names {
		delete(out, n)
	}
	return out
}

// mergeCookies puts the jar's cookies and the request's together; a request
// cookie replaces the jar's of the same name only when it says so.
func mergeCookies(fromJar []*http.Cookie, reqCookies []RequestCookie) []RequestCookie {
	if len(fromJar) == 0 && len(reqCookies) == 0 {
		return nil
	}
	out := make([]RequestCookie, 0, len(fromJar)+len(reqCookies))
	for _, jc := range fromJar {
		replaced := false
		for _, rc := range reqCookies {
			if rc.Replace && rc.Name == jc.Name {
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, RequestCookie{Name: jc.Name, Value: jc.Value})
		}
	}
	for _, rc := range reqCookies {
		inJar := false
		for _, jc := range fromJar {
			if jc.Name == rc.Name {
				inJar = true
				break
			}
		}
		if rc.Replace || !inJar {
			out = append(out, rc)
		}
	}
	return out
}

func cookieHeader(existing string, cookies []RequestCookie) string {
	var b strings.Builder
	b.WriteString(existing)
	for _, ck := range cookies {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(ck.Name)
		b.WriteByte('=')
		b.WriteString(sanitizeCookieValue(ck.Value))
	}
	return b.String()
}

// sanitizeCookieValue quotes a value with spaces or commas, as net/http does.
func sanitizeCookieValue(v string) string {
	if strings.ContainsAny(v, " ,") && !(len(v) > 1 && v[0] == '"' && v[len(v)-1] == '"') {
		return `"` + v + `"`
	}
	return v
}

// basicAuth is the Authorization header for credentials in the URL (user:pass@host), unless the request has its own.
func basicAuth(u *url.URL, h http.Header) (string, bool) {
	if u.User == nil {
		return "", false
	}
	if _, ok := h["Authorization"]; ok {
		return "", false
	}
	pass, _ := u.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass)), true
}

func defaultPort(https bool) string {
	if https {
		return "443"
	}
	return "80"
}

// failed builds the response of a request that got no HTTP response.
func failed(h *hop, start time.Time, err error, ctx context.Context) *Response {
	e := classify(err)
	r := &Response{Method: h.method, URL: h.u, RequestBody: h.body, RequestCookies: h.cookies, reqHeader: h.header}
	r.Timings.Start, r.Timings.End = start, time.Now()
	if ctx.Err() != nil {
		r.Aborted = true
		r.Error, r.ErrorCode = "request aborted: "+ctx.Err().Error(), CodeGeneric
		return r
	}
	r.Error, r.ErrorCode = e.Msg, e.Code
	if e.Code == CodeTimeout {
		r.Error = "request timeout"
	}
	return r
}

func portOf(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
