package netclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"
)

func tlsCipherName(id uint16) string { return tls.CipherSuiteName(id) }

type h2DialKey struct{}

// h2Dial carries a request's deadline to dialForTransport and brings back what dialing measured.
type h2Dial struct {
	mu         sync.Mutex
	deadline   time.Time
	connecting time.Duration
	tlsTime    time.Duration
}

// dialForTransport is the net/http transport's TLS dialer: a connection
// already made for this address (that negotiated h2) is used first; otherwise
// it dials through the same policy-checked path as HTTP/1.1.
func (c *Client) dialForTransport(ctx context.Context, network, addr string) (net.Conn, error) {
	c.mu.Lock()
	d := c.preDialed[addr]
	delete(c.preDialed, addr)
	c.mu.Unlock()
	if d != nil {
		return d.conn, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	info, _ := ctx.Value(h2DialKey{}).(*h2Dial)
	var deadline time.Time
	if info != nil {
		deadline = info.deadline
	}
	d, err = c.dial(ctx, deadline, true, host, port)
	if err != nil {
		return nil, err
	}
	if info != nil {
		info.mu.Lock()
		info.connecting, info.tlsTime = d.connecting, d.tlsTime
		info.mu.Unlock()
	}
	return d.conn, nil
}

// roundTripH2 sends a request through net/http (used for hosts that negotiated HTTP/2); pre is a
// connection just dialed for it, start is when the request began.
func (c *Client) roundTripH2(ctx context.Context, deadline time.Time, h *hop, start time.Time, pre *dialed) *Response {
	host := h.u.Host
	if h.u.Port() == "" {
		host = net.JoinHostPort(h.u.Hostname(), "443")
	} else {
		host = net.JoinHostPort(h.u.Hostname(), h.u.Port())
	}
	info := &h2Dial{deadline: deadline}
	if pre != nil {
		c.mu.Lock()
		if old := c.preDialed[host]; old != nil {
			old.conn.Close()
		}
		c.preDialed[host] = pre
		c.mu.Unlock()
		info.connecting, info.tlsTime = pre.connecting, pre.tlsTime
	}
	o := c.shared.Opts
	header := make(http.Header, len(h.header)+2)
	for k, v := range h.header {
		header[k] = v
	}
	r := &Response{Method: h.method, URL: h.u, RequestBody: h.body, RequestCookies: h.cookies, reqHeader: h.header}
	if _, ok := header["User-Agent"]; !ok {
		header["User-Agent"] = []string{o.UserAgent} // an empty value makes net/http send none
		if o.UserAgent != "" {
			r.reqExtra = append(r.reqExtra, [2]string{"User-Agent", o.UserAgent})
		}
	}
	if auth, ok := basicAuth(h.u, h.header); ok {
		header["Authorization"] = []string{auth}
		r.reqExtra = append(r.reqExtra, [2]string{"Authorization", auth})
	}
	if len(h.cookies) > 0 {
		ch := cookieHeader(h.header.Get("Cookie"), h.cookies)
		header["Cookie"] = []string{ch}
		r.reqExtra = append(r.reqExtra, [2]string{"Cookie", ch})
	}
	u := h.u
	if u.User != nil {
		cu := *u
		cu.User = nil
		u = &cu
	}
	hreq := &http.Request{Method: h.method, URL: u, Header: header, Host: h.u.Host, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	if hv := h.header["Host"]; len(hv) > 0 && hv[0] != "" {
		hreq.Host = hv[0]
	}
	delete(header, "Host")
	if h.body != nil {
		body := h.body
		hreq.ContentLength = int64(len(body))
		hreq.Body = io.NopCloser(bytes.NewReader(body))
		hreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	var mu sync.Mutex
	var tGot, tWrote, tFirst time.Time
	trace := &httptrace.ClientTrace{
		GotConn: func(gi httptrace.GotConnInfo) {
			mu.Lock()
			tGot = time.Now()
			mu.Unlock()
			if ap, ok := gi.Conn.RemoteAddr().(*net.TCPAddr); ok {
				r.RemoteIP, r.RemotePort = ap.IP.String(), ap.Port
			}
			if tc, ok := gi.Conn.(*tls.Conn); ok {
				st := tc.ConnectionState()
				r.TLSVersion, r.TLSCipherSuite = TLSVersionName(st.Version), tlsCipherName(st.CipherSuite)
			}
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			mu.Lock()
			tWrote = time.Now()
			mu.Unlock()
		},
		GotFirstResponseByte: func() {
			mu.Lock()
			tFirst = time.Now()
			mu.Unlock()
		},
	}
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	rctx = context.WithValue(httptrace.WithClientTrace(rctx, trace), h2DialKey{}, info)
	resp, err := c.h2.RoundTrip(hreq.WithContext(rctx))
	if pre != nil {
		// The transport may have used a connection it already had; then the one dialed for it goes.
		c.mu.Lock()
		if c.preDialed[host] == pre {
			delete(c.preDialed, host)
			pre.conn.Close()
		}
		c.mu.Unlock()
	}
	if err == nil {
		if h.discard {
			_, err = io.Copy(io.Discard, resp.Body)
		} else {
			r.Body, err = io.ReadAll(resp.Body)
		}
		resp.Body.Close()
	}
	tEnd := time.Now()
	mu.Lock()
	defer mu.Unlock()
	info.mu.Lock()
	connecting, tlsTime := info.connecting, info.tlsTime
	info.mu.Unlock()
	if err != nil {
		fr := failed(h, start, err, ctx)
		fr.RemoteIP, fr.RemotePort = r.RemoteIP, r.RemotePort
		if resp != nil {
			fr.Status, fr.StatusText, fr.Proto = resp.StatusCode, resp.Status, resp.Proto
		}
		fr.Timings.Connecting, fr.Timings.TLSHandshaking = connecting, tlsTime
		return fr
	}
	r.Status, r.StatusText, r.Proto = resp.StatusCode, resp.Status, resp.Proto
	r.header = resp.Header
	r.Cookies = resp.Cookies()
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && len(r.Body) > 0 {
		if b, derr := decompress(r.Body, strings.ToLower(enc)); derr != nil {
			r.Error, r.ErrorCode = "decompression error: "+derr.Error(), CodeDecompression
		} else {
			r.Body = b
		}
	}
	if tGot.IsZero() {
		tGot = start
	}
	if tWrote.IsZero() {
		tWrote = tGot
	}
	if tFirst.IsZero() {
		tFirst = tWrote
	}
	t := &r.Timings
	t.Start, t.End = start, tEnd
	t.Blocked = tGot.Sub(start)
	t.Connecting, t.TLSHandshaking = connecting, tlsTime
	t.Sending, t.Waiting, t.Receiving = tWrote.Sub(tGot), tFirst.Sub(tWrote), tEnd.Sub(tFirst)
	t.Duration = t.Sending + t.Waiting + t.Receiving
	if r.ErrorCode == 0 {
		r.ErrorCode = StatusErrorCode(r.Status)
	}
	return r
}
