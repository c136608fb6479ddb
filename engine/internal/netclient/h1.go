package netclient

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// h1conn is a kept-alive HTTP/1.1 connection.
type h1conn struct {
	conn     net.Conn
	br       *bufio.Reader
	bw       *bufio.Writer
	key      connKey
	ip       string
	port     int
	tlsVer   string
	cipher   string
	scratch  []byte // the header block being read
	fromIdle bool
}

func (pc *h1conn) close() { _ = pc.conn.Close() }

// getConn takes an idle connection or dials one; a dialed TLS connection may have negotiated h2.
func (c *Client) getConn(ctx context.Context, deadline time.Time, h *hop, key connKey) (*h1conn, *dialed, error) {
	c.mu.Lock()
	if list := c.idle[key]; len(list) > 0 {
		pc := list[len(list)-1]
		list[len(list)-1] = nil
		c.idle[key] = list[:len(list)-1]
		c.active[pc] = struct{}{}
		c.mu.Unlock()
		pc.fromIdle = true
		return pc, nil, nil
	}
	c.mu.Unlock()
	port := h.u.Port()
	if port == "" {
		port = defaultPort(key.https)
	}
	d, err := c.dial(ctx, deadline, key.https, h.u.Hostname(), port)
	if err != nil {
		return nil, nil, err
	}
	if d.tlsState != nil && d.tlsState.NegotiatedProtocol == "h2" {
		return nil, d, nil
	}
	pc := &h1conn{
		conn: d.conn, key: key, ip: d.ip.String(), port: d.port,
		br: bufio.NewReaderSize(d.conn, 8<<10), bw: bufio.NewWriterSize(d.conn, 4<<10),
	}
	if d.tlsState != nil {
		pc.tlsVer = TLSVersionName(d.tlsState.Version)
		pc.cipher = tlsCipherName(d.tlsState.CipherSuite)
	}
	c.mu.Lock()
	c.active[pc] = struct{}{}
	c.mu.Unlock()
	return pc, d, nil
}

// release returns a connection to the idle pool or closes it.
func (c *Client) release(pc *h1conn, reusable bool) {
	c.mu.Lock()
	delete(c.active, pc)
	if reusable && !c.shared.Opts.NoConnectionReuse && len(c.idle[pc.key]) < maxIdlePerHost {
		c.idle[pc.key] = append(c.idle[pc.key], pc)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	pc.close()
}

// roundTrip sends one request of a redirect chain and reads its response.
func (c *Client) roundTrip(ctx context.Context, deadline time.Time, h *hop) *Response {
	key := connKey{https: h.u.Scheme == "https", host: h.u.Host}
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return failed(h, start, err, ctx)
	}
	if key.https {
		c.mu.Lock()
		isH2 := c.h2hosts[key]
		c.mu.Unlock()
		if isH2 {
			return c.roundTripH2(ctx, deadline, h, start, nil)
		}
	}
	for attempt := 0; ; attempt++ {
		pc, d, err := c.getConn(ctx, deadline, h, key)
		if err != nil {
			return failed(h, start, err, ctx)
		}
		if pc == nil { // a fresh TLS connection negotiated HTTP/2
			c.mu.Lock()
			c.h2hosts[key] = true
			c.mu.Unlock()
			return c.roundTripH2(ctx, deadline, h, start, d)
		}
		resp, retry := c.exchange(ctx, deadline, h, pc, d, start)
		if retry && attempt == 0 {
			continue
		}
		return resp
	}
}

// exchange writes the request on pc and reads the response. retry says the
// connection was a kept-alive one the server had already closed, so the
// request can go again on a fresh one.
func (c *Client) exchange(ctx context.Context, deadline time.Time, h *hop, pc *h1conn, d *dialed, start time.Time) (*Response, bool) {
	tGot := time.Now()
	_ = pc.conn.SetDeadline(deadline)
	r := &Response{Method: h.method, URL: h.u, RequestBody: h.body, RequestCookies: h.cookies, reqHeader: h.header,
		RemoteIP: pc.ip, RemotePort: pc.port, TLSVersion: pc.tlsVer, TLSCipherSuite: pc.cipher}
	r.Timings.Start = start
	r.Timings.Blocked = tGot.Sub(start)
	if d != nil {
		r.Timings.Connecting, r.Timings.TLSHandshaking = d.connecting, d.tlsTime
	}
	if err := c.writeRequest(pc.bw, h, r); err != nil {
		c.release(pc, false)
		if c.mayResend(pc, h, ctx, deadline) {
			return nil, true
		}
		return failed(h, start, err, ctx), false
	}
	tWrote := time.Now()
	if _, err := pc.br.Peek(1); err != nil {
		c.release(pc, false)
		// Only a clean close (EOF) of a kept-alive connection says the server closed it idle, before it read the
		// request; a reset may come from a server that took the request and died, which is a failure to count.
		if errors.Is(err, io.EOF) && c.mayResend(pc, h, ctx, deadline) {
			return nil, true
		}
		fr := failed(h, start, err, ctx)
		fr.Timings = r.Timings
		fr.Timings.Sending = tWrote.Sub(tGot)
		fr.Timings.End = time.Now()
		return fr, false
	}
	tFirst := time.Now()
	reusable, err := c.readResponse(pc, h, r)
	tEnd := time.Now()
	// A request that says "Connection: close" (opsbench's reconnectEvery) ends its connection whatever the server says.
	c.release(pc, reusable && err == nil && !strings.EqualFold(h.header.Get("Connection"), "close"))
	if err != nil {
		fr := failed(h, start, err, ctx)
		fr.Status, fr.StatusText, fr.Proto = r.Status, r.StatusText, r.Proto
		fr.RemoteIP, fr.RemotePort = r.RemoteIP, r.RemotePort
		r = fr
	}
	t := &r.Timings
	t.Start, t.End = start, tEnd
	t.Blocked = tGot.Sub(start)
	if d != nil {
		t.Connecting, t.TLSHandshaking = d.connecting, d.tlsTime
	}
	t.Sending, t.Waiting, t.Receiving = tWrote.Sub(tGot), tFirst.Sub(tWrote), tEnd.Sub(tFirst)
	t.Duration = t.Sending + t.Waiting + t.Receiving
	if r.ErrorCode == 0 {
		r.ErrorCode = StatusErrorCode(r.Status)
	}
	return r, false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func validHeaderValue(v string) bool { return !strings.ContainsAny(v, "\r\n") }

// writeRequest writes the request head and body.
func (c *Client) writeRequest(bw *bufio.Writer, h *hop, r *Response) error {
	o := c.shared.Opts
	u := h.u
	host := u.Host
	if hv := h.header["Host"]; len(hv) > 0 && hv[0] != "" {
		host = hv[0]
	}
	bw.WriteString(h.method)
	bw.WriteByte(' ')
	if u.Opaque != "" {
		bw.WriteString(u.RequestURI())
	} else {
		p := u.EscapedPath()
		if p == "" {
			p = "/"
		}
		bw.WriteString(p)
		if u.ForceQuery || u.RawQuery != "" {
			bw.WriteByte('?')
			bw.WriteString(u.RawQuery)
		}
	}
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(host)
	bw.WriteString("\r\n")
	r.reqExtra = append(r.reqExtra[:0], [2]string{"Host", host})
	if _, ok := h.header["User-Agent"]; !ok && o.UserAgent != "" {
		bw.WriteString("User-Agent: ")
		bw.WriteString(o.UserAgent)
		bw.WriteString("\r\n")
		r.reqExtra = append(r.reqExtra, [2]string{"User-Agent", o.UserAgent})
	}
	for k, vs := range h.header {
		switch k {
		case "Host", "Content-Length", "Transfer-Encoding":
			continue
		case "Connection":
			if o.NoConnectionReuse {
				continue // "close" is written below
			}
		case "Cookie":
			if len(h.cookies) > 0 {
				continue // written below, merged with the jar's
			}
		}
		if !validHeaderValue(k) {
			return newError(CodeGeneric, fmt.Sprintf("invalid header name %q", k), nil)
		}
		for _, v := range vs {
			if !validHeaderValue(v) {
				return newError(CodeGeneric, fmt.Sprintf("invalid value for header %q", k), nil)
			}
			bw.WriteString(k)
			bw.WriteString(": ")
			bw.WriteString(v)
			bw.WriteString("\r\n")
		}
	}
	if auth, ok := basicAuth(u, h.header); ok {
		bw.WriteString("Authorization: ")
		bw.WriteString(auth)
		bw.WriteString("\r\n")
		r.reqExtra = append(r.reqExtra, [2]string{"Authorization", auth})
	}
	if len(h.cookies) > 0 {
		ch := cookieHeader(h.header.Get("Cookie"), h.cookies)
		bw.WriteString("Cookie: ")
		bw.WriteString(ch)
		bw.WriteString("\r\n")
		r.reqExtra = append(r.reqExtra, [2]string{"Cookie", ch})
	}
	if h.body != nil || h.method == "POST" || h.method == "PUT" || h.method == "PATCH" {
		n := strconv.Itoa(len(h.body))
		bw.WriteString("Content-Length: ")
		bw.WriteString(n)
		bw.WriteString("\r\n")
		r.reqExtra = append(r.reqExtra, [2]string{"Content-Length", n})
	}
	if o.NoConnectionReuse {
		bw.WriteString("Connection: close\r\n")
	}
	bw.WriteString("\r\n")
	if len(h.body) > 0 {
		bw.Write(h.body)
	}
	return bw.Flush()
}

var statusTexts = func() map[int]string {
	m := map[int]string{}
	for code := 100; code < 600; code++ {
		if t := http.StatusText(code); t != "" {
			m[code] = strconv.Itoa(code) + " " + t
		}
	}
	return m
}()

var errMalformed = errors.New("malformed HTTP response")

// maxHeaderBytes bounds a response's header block (as net/http's default does).
const maxHeaderBytes = 1 << 20

func trimCRLF(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// readResponse reads status line, headers and body into r; it tells whether the connection can be reused.
func (c *Client) readResponse(pc *h1conn, h *hop, r *Response) (reusable bool, err error) {
	br := pc.br
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return false, err
		}
		line = trimCRLF(line)
		if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
			return false, fmt.Errorf("%w: status line %q", errMalformed, line)
		}
		status, err := strconv.Atoi(string(line[9:12]))
		if err != nil || status < 100 {
			return false, fmt.Errorf("%w: status line %q", errMalformed, line)
		}
		http10 := line[7] == '0'
		r.Proto = "HTTP/1.1"
		if http10 {
			r.Proto = "HTTP/1.0"
		}
		r.Status = status
		reason := strings.TrimSpace(string(line[12:]))
		if st, ok := statusTexts[status]; ok && reason == http.StatusText(status) {
			r.StatusText = st
		} else {
			r.StatusText = strings.TrimSpace(strconv.Itoa(status) + " " + reason)
		}
		contentLength := int64(-1)
		chunked, closeConn, keepAlive := false, false, false
		encoding := ""
		hasCookies := false
		buf := pc.scratch[:0]
		for {
			lineStart := len(buf)
			l, err := br.ReadSlice('\n')
			for errors.Is(err, bufio.ErrBufferFull) { // a line longer than the read buffer
				buf = append(buf, l...)
				if len(buf) > maxHeaderBytes {
					return false, fmt.Errorf("%w: headers larger than %d bytes", errMalformed, maxHeaderBytes)
				}
				l, err = br.ReadSlice('\n')
			}
			if err != nil {
				return false, err
			}
			buf = append(buf, l...)
			kv := trimCRLF(buf[lineStart:])
			if len(kv) == 0 {
				buf = buf[:lineStart]
				break
			}
			colon := bytes.IndexByte(kv, ':')
			if colon <= 0 {
				continue
			}
			k, v := kv[:colon], bytes.TrimSpace(kv[colon+1:])
			switch len(k) {
			case 14:
				if asciiEqualFold(k, "Content-Length") {
					n, perr := strconv.ParseInt(string(v), 10, 64)
					if perr != nil || n < 0 {
						return false, fmt.Errorf("%w: bad Content-Length %q", errMalformed, v)
					}
					contentLength = n
				}
			case 17:
				if asciiEqualFold(k, "Transfer-Encoding") && bytes.Contains(bytes.ToLower(v), []byte("chunked")) {
					chunked = true
				}
			case 10:
				if asciiEqualFold(k, "Connection") {
					lv := bytes.ToLower(v)
					closeConn = closeConn || bytes.Contains(lv, []byte("close"))
					keepAlive = keepAlive || bytes.Contains(lv, []byte("keep-alive"))
				} else if asciiEqualFold(k, "Set-Cookie") {
					hasCookies = true
				}
			case 16:
				if asciiEqualFold(k, "Content-Encoding") {
					encoding = strings.ToLower(string(v))
				}
			}
		}
		pc.scratch = buf
		if status >= 100 && status < 200 && status != 101 {
			continue // an interim response; the real one follows
		}
		r.rawHeader = string(buf)
		r.header = nil
		if hasCookies {
			for _, sc := range r.Header()["Set-Cookie"] {
				if ck, perr := http.ParseSetCookie(sc); perr == nil {
					r.Cookies = append(r.Cookies, ck)
				}
			}
		}
		reusable = !closeConn && (!http10 || keepAlive)
		noBody := h.method == "HEAD" || status == 204 || status == 304 || status == 101
		switch {
		case noBody:
		case chunked:
			r.Body, err = readChunked(br, h.discard)
		case contentLength >= 0:
			r.Body, err = readN(br, contentLength, h.discard)
		default:
			reusable = false
			if h.discard {
				_, err = io.Copy(io.Discard, br)
			} else {
				r.Body, err = io.ReadAll(br)
			}
		}
		if err != nil {
			return false, err
		}
		if encoding != "" && len(r.Body) > 0 {
			if r.Body, err = decompress(r.Body, encoding); err != nil {
				return reusable, newError(CodeDecompression, "decompression error: "+err.Error(), err)
			}
		}
		return reusable, nil
	}
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if x|0x20 != y|0x20 {
			return false
		}
	}
	return true
}

func readN(br *bufio.Reader, n int64, discard bool) ([]byte, error) {
	if discard {
		_, err := br.Discard(int(n))
		if err == io.EOF && n > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	body := make([]byte, n)
	_, err := io.ReadFull(br, body)
	return body, err
}

func readChunked(br *bufio.Reader, discard bool) ([]byte, error) {
	var body []byte
	if !discard {
		body = []byte{}
	}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return nil, noEOF(err)
		}
		line = trimCRLF(line)
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("%w: bad chunk size %q", errMalformed, line)
		}
		if size == 0 {
			for { // trailers up to the empty line
				l, err := br.ReadSlice('\n')
				if err != nil {
					return nil, noEOF(err)
				}
				if len(trimCRLF(l)) == 0 {
					return body, nil
				}
			}
		}
		if discard {
			if _, err := br.Discard(int(size)); err != nil {
				return nil, noEOF(err)
			}
		} else {
			n := len(body)
			body = append(body, make([]byte, size)...)
			if _, err := io.ReadFull(br, body[n:]); err != nil {
				return nil, noEOF(err)
			}
		}
		if _, err := br.Discard(2); err != nil {
			return nil, noEOF(err)
		}
	}
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// decompress undoes the Content-Encoding codings the standard library knows (gzip, deflate); others are left as they came.
func decompress(body []byte, encoding string) ([]byte, error) {
	codings := strings.Split(encoding, ",")
	for i := len(codings) - 1; i >= 0; i-- {
		var rd io.Reader
		var err error
		switch strings.TrimSpace(codings[i]) {
		case "gzip", "x-gzip":
			rd, err = gzip.NewReader(bytes.NewReader(body))
		case "deflate":
			if rd, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
				rd, err = flate.NewReader(bytes.NewReader(body)), nil
			}
		case "identity", "":
			continue
		default:
			return body, nil
		}
		if err != nil {
			return nil, err
		}
		if body, err = io.ReadAll(rd); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// parseRawHeader turns a header block into canonical headers.
func parseRawHeader(raw string) http.Header {
	h := http.Header{}
	for len(raw) > 0 {
		i := strings.IndexByte(raw, '\n')
		var line string
		if i < 0 {
			line, raw = raw, ""
		} else {
			line, raw = raw[:i], raw[i+1:]
		}
		line = strings.TrimRight(line, "\r")
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		k := textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(line[:colon]))
		h[k] = append(h[k], strings.TrimSpace(line[colon+1:]))
	}
	return h
}

// mayResend: a request that failed on a kept-alive connection before any answer may go again on a new one, once,
// when sending it twice does no harm (GET, HEAD, OPTIONS, TRACE, as Go's own client decides) and time is left.
func (c *Client) mayResend(pc *h1conn, h *hop, ctx context.Context, deadline time.Time) bool {
	switch h.method {
	case "GET", "HEAD", "OPTIONS", "TRACE":
	default:
		return false
	}
	return pc.fromIdle && ctx.Err() == nil && time.Now().Before(deadline)
}
