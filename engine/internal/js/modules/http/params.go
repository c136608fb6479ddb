package http

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/netclient"
)

// prepared is a request built from JS arguments.
type prepared struct {
	req          *netclient.Request
	info         netclient.SampleInfo
	responseType string // "text", "binary" or "none"
}

// taggedURL is what http.url`...` returns: the URL and the name tag made from its template.
type taggedURL struct {
	rt        *sobek.Runtime
	url, name string
}

func (t *taggedURL) Get(key string) sobek.Value {
	switch key {
	case "url":
		return t.rt.ToValue(t.url)
	case "name":
		return t.rt.ToValue(t.name)
	case "toString", "valueOf":
		return t.rt.ToValue(func(sobek.FunctionCall) sobek.Value { return t.rt.ToValue(t.url) })
	}
	return nil
}
func (t *taggedURL) Set(string, sobek.Value) bool { return false }
func (t *taggedURL) Has(key string) bool          { return key == "url" || key == "name" }
func (t *taggedURL) Delete(string) bool           { return false }
func (t *taggedURL) Keys() []string               { return []string{"url", "name"} }

// taggedURL is http.url`...`.
func (m *module) taggedURL(c sobek.FunctionCall) sobek.Value {
	strs, ok := c.Argument(0).Export().([]any)
	if !ok {
		m.throwf("http.url must be used as a tagged template: http.url`https://host/path/${id}`")
	}
	var u, name strings.Builder
	for i, s := range strs {
		str := fmt.Sprint(s)
		u.WriteString(str)
		name.WriteString(str)
		if i+1 < len(strs) {
			u.WriteString(c.Argument(i + 1).String())
			name.WriteString("${}")
		}
	}
	return m.rt.NewDynamicObject(&taggedURL{rt: m.rt, url: u.String(), name: name.String()})
}

func isNullish(v sobek.Value) bool { return v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) }

// parseURL turns a URL argument (string or http.url object) into a URL, cached per VU.
func (m *module) parseURL(v sobek.Value) (*url.URL, string, string) {
	var raw, name string
	if o, ok := v.(*sobek.Object); ok {
		if t, ok := o.Export().(*taggedURL); ok {
			raw, name = t.url, t.name
		}
	}
	if raw == "" && name == "" {
		if isNullish(v) {
			m.throwf("invalid URL: no URL given")
		}
		raw = v.String()
	}
	if u, ok := m.st.urls[raw]; ok {
		return u, raw, name
	}
	u, err := url.Parse(raw)
	if err != nil {
		m.throwf("invalid URL %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		m.throwf("invalid URL %q: only http:// and https:// URLs are supported", raw)
	}
	if u.Host == "" {
		m.throwf("invalid URL %q: no host", raw)
	}
	if len(m.st.urls) >= 256 {
		clear(m.st.urls)
	}
	m.st.urls[raw] = u
	return u, raw, name
}

// bytesOf converts a string, ArrayBuffer, typed array or array of numbers to bytes.
func (m *module) bytesOf(v sobek.Value) ([]byte, bool) {
	switch x := v.Export().(type) {
	case string:
		return []byte(x), true
	case sobek.ArrayBuffer:
		return bytes.Clone(x.Bytes()), true
	case []byte:
		return bytes.Clone(x), true
	case []any:
		b := make([]byte, len(x))
		for i, e := range x {
			switch n := e.(type) {
			case int64:
				b[i] = byte(n)
			case float64:
				b[i] = byte(n)
			default:
				return nil, false
			}
		}
		return b, true
	}
	if o, ok := v.(*sobek.Object); ok && o.ClassName() == "String" {
		return []byte(v.String()), true
	}
	return nil, false
}

// parseDuration reads a timeout: a number of milliseconds or a duration string ("60s").
func parseDuration(v sobek.Value) (time.Duration, error) {
	switch x := v.Export().(type) {
	case int64:
		return time.Duration(x) * time.Millisecond, nil
	case float64:
		return time.Duration(x * float64(time.Millisecond)), nil
	}
	s := v.String()
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(time.Millisecond)), nil
	}
	return time.ParseDuration(s)
}

// prepare builds a request from JS arguments.
func (m *module) prepare(method string, urlArg, body, params sobek.Value) *prepared {
	u, raw, name := m.parseURL(urlArg)
	p := &prepared{req: &netclient.Request{Method: method, URL: u}, responseType: "text"}
	p.info = netclient.SampleInfo{Name: name, URL: raw, Expected: m.st.expected}
	if u.User != nil {
		p.info.URL = "" // the url tag is formatted without the password
	}
	if m.st.opts.DiscardResponseBodies {
		p.responseType = "none"
	}
	var header http.Header
	setHeader := func(k, v string) {
		if header == nil {
			header = http.Header{}
		}
		header[textproto.CanonicalMIMEHeaderKey(k)] = []string{v}
	}
	compression := ""
	if po, ok := params.(*sobek.Object); ok && !isNullish(params) {
		for _, key := range po.Keys() {
			v := po.Get(key)
			switch key {
			case "headers":
				if ho, ok := v.(*sobek.Object); ok && !isNullish(v) {
					for _, hk := range ho.Keys() {
						if hv := ho.Get(hk); !isNullish(hv) {
							setHeader(hk, hv.String())
						}
					}
				}
			case "tags":
				if to, ok := v.(*sobek.Object); ok && !isNullish(v) {
					p.info.Tags = map[string]string{}
					for _, tk := range to.Keys() {
						p.info.Tags[tk] = to.Get(tk).String()
					}
				}
			case "timeout":
				if isNullish(v) {
					continue
				}
				d, err := parseDuration(v)
				if err != nil || d <= 0 {
					m.throwf("invalid timeout %q: use a number of milliseconds or a duration like \"30s\"", v.String())
				}
				p.req.Timeout = d
			case "redirects":
				if isNullish(v) {
					continue
				}
				n := int(v.ToInteger())
				p.req.Redirects = &n
			case "responseType":
				if isNullish(v) {
					continue
				}
				switch rt := v.String(); rt {
				case "text", "binary", "none":
					p.responseType = rt
				default:
					m.throwf("invalid responseType %q: use \"text\", \"binary\" or \"none\"", rt)
				}
			case "cookies":
				p.req.Cookies = m.requestCookies(v)
			case "jar":
				if isNullish(v) {
					continue
				}
				j, ok := v.Export().(*jsJar)
				if !ok {
					m.throwf("params.jar must be a cookie jar (http.cookieJar() or new http.CookieJar())")
				}
				p.req.Jar = j.jar
			case "auth":
				switch a := strings.ToLower(v.String()); a {
				case "", "basic", "undefined", "null":
				case "digest", "ntlm":
					m.throwUnsupported(fmt.Sprintf("HTTP %s authentication (params.auth = %q)", a, a),
						"use basic authentication with credentials in the URL, or set the Authorization header yourself")
				default:
					m.throwf("unknown params.auth %q", a)
				}
			case "compression":
				if !isNullish(v) {
					compression = strings.ToLower(strings.TrimSpace(v.String()))
				}
			case "responseCallback":
				p.info.Expected = m.expectedFrom(v)
			}
		}
	}
	if !isNullish(body) {
		b, ct := m.body(body)
		if ct != "" && header.Get("Content-Type") == "" {
			setHeader("Content-Type", ct)
		}
		if compression != "" {
			var err error
			if b, err = compress(b, compression); err != nil {
				m.throwUnsupported(fmt.Sprintf("params.compression %q", compression), "gzip and deflate are supported")
			}
			setHeader("Content-Encoding", compression)
		}
		p.req.Body = b
	}
	p.req.Header = header
	p.req.DiscardBody = p.responseType == "none"
	return p
}

func compress(b []byte, codings string) ([]byte, error) {
	for _, c := range strings.Split(codings, ",") {
		var buf bytes.Buffer
		switch strings.TrimSpace(c) {
		case "gzip":
			w := gzip.NewWriter(&buf)
			w.Write(b)
			w.Close()
		case "deflate":
			w := zlib.NewWriter(&buf)
			w.Write(b)
			w.Close()
		default:
			return nil, fmt.Errorf("unsupported compression %q", c)
		}
		b = buf.Bytes()
	}
	return b, nil
}

// requestCookies reads params.cookies: name -> value, or name -> {value, replace}.
func (m *module) requestCookies(v sobek.Value) []netclient.RequestCookie {
	o, ok := v.(*sobek.Object)
	if !ok || isNullish(v) {
		return nil
	}
	var out []netclient.RequestCookie
	for _, k := range o.Keys() {
		cv := o.Get(k)
		rc := netclient.RequestCookie{Name: k}
		if co, ok := cv.(*sobek.Object); ok && !isNullish(cv) && co.ClassName() == "Object" {
			rc.Value = co.Get("value").String()
			rc.Replace = co.Get("replace").ToBoolean()
		} else {
			rc.Value = cv.String()
		}
		out = append(out, rc)
	}
	return out
}

// body converts a request body: string or binary as is; an object becomes a
// form (multipart when a value is an http.file()). It returns the content type to set, if any.
func (m *module) body(v sobek.Value) ([]byte, string) {
	if b, ok := m.bytesOf(v); ok {
		return b, ""
	}
	o, ok := v.(*sobek.Object)
	if !ok {
		return []byte(v.String()), ""
	}
	keys := o.Keys()
	multi := false
	for _, k := range keys {
		if _, ok := o.Get(k).Export().(*fileData); ok {
			multi = true
			break
		}
	}
	if !multi {
		var b strings.Builder
		for _, k := range keys {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k))
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(o.Get(k).String()))
		}
		return []byte(b.String()), "application/x-www-form-urlencoded"
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, k := range keys {
		fv := o.Get(k)
		if f, ok := fv.Export().(*fileData); ok {
			h := textproto.MIMEHeader{}
			filename := f.filename
			if filename == "" {
				filename = k
			}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, escapeQuotes(k), escapeQuotes(filename)))
			h.Set("Content-Type", f.contentType)
			pw, _ := w.CreatePart(h)
			pw.Write(f.data)
		} else {
			_ = w.WriteField(k, fv.String())
		}
	}
	w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

func escapeQuotes(s string) string { return quoteEscaper.Replace(s) }

// fileData is http.file(): data for a multipart part.
type fileData struct {
	rt          *sobek.Runtime
	orig        sobek.Value
	data        []byte
	filename    string
	contentType string
}

func (f *fileData) Get(key string) sobek.Value {
	switch key {
	case "data":
		return f.orig
	case "filename":
		return f.rt.ToValue(f.filename)
	case "content_type":
		return f.rt.ToValue(f.contentType)
	}
	return nil
}
func (f *fileData) Set(string, sobek.Value) bool { return false }
func (f *fileData) Has(key string) bool {
	return key == "data" || key == "filename" || key == "content_type"
}
func (f *fileData) Delete(string) bool { return false }
func (f *fileData) Keys() []string     { return []string{"data", "filename", "content_type"} }

func (m *module) file(c sobek.FunctionCall) sobek.Value {
	b, ok := m.bytesOf(c.Argument(0))
	if !ok {
		m.throwf("http.file: data must be a string, an ArrayBuffer or an array of numbers")
	}
	f := &fileData{rt: m.rt, orig: c.Argument(0), data: b, contentType: "application/octet-stream"}
	if v := c.Argument(1); !isNullish(v) {
		f.filename = v.String()
	}
	if v := c.Argument(2); !isNullish(v) {
		f.contentType = v.String()
	}
	return m.rt.NewDynamicObject(f)
}

// expectedObj is what http.expectedStatuses() returns.
type expectedObj struct{ e *netclient.ExpectedStatuses }

func (e *expectedObj) Get(string) sobek.Value       { return nil }
func (e *expectedObj) Set(string, sobek.Value) bool { return false }
func (e *expectedObj) Has(string) bool              { return false }
func (e *expectedObj) Delete(string) bool           { return false }
func (e *expectedObj) Keys() []string               { return nil }

func (m *module) expectedStatuses(c sobek.FunctionCall) sobek.Value {
	var ranges [][2]int
	for i, a := range c.Arguments {
		switch x := a.Export().(type) {
		case int64:
			ranges = append(ranges, [2]int{int(x), int(x)})
		case float64:
			if x != float64(int(x)) {
				m.throwf("http.expectedStatuses: argument %d (%v) is not an integer", i, x)
			}
			ranges = append(ranges, [2]int{int(x), int(x)})
		default:
			o, ok := a.(*sobek.Object)
			if !ok || isNullish(o.Get("min")) || isNullish(o.Get("max")) {
				m.throwf("http.expectedStatuses: argument %d must be a status code or an object like {min: 200, max: 299}", i)
			}
			ranges = append(ranges, [2]int{int(o.Get("min").ToInteger()), int(o.Get("max").ToInteger())})
		}
	}
	return m.rt.NewDynamicObject(&expectedObj{netclient.NewExpectedStatuses(ranges...)})
}

// expectedFrom reads a response callback: null for none, or an http.expectedStatuses() result.
func (m *module) expectedFrom(v sobek.Value) *netclient.ExpectedStatuses {
	if isNullish(v) {
		return nil
	}
	if e, ok := v.Export().(*expectedObj); ok {
		return e.e
	}
	if _, ok := sobek.AssertFunction(v); ok {
		m.throwUnsupported("a JavaScript function as response callback",
			"k6 only accepts the result of http.expectedStatuses() there, which is supported")
	}
	m.throwf("the response callback must be the result of http.expectedStatuses() or null")
	return nil
}

func (m *module) setResponseCallback(c sobek.FunctionCall) sobek.Value {
	m.st.expected = m.expectedFrom(c.Argument(0))
	return sobek.Undefined()
}
