package http

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/netclient"
)

// jsResponse is k6's Response object. Its properties are made when first read,
// so a script that only checks the status pays for nothing else.
type jsResponse struct {
	m      *module
	r      *netclient.Response
	p      *prepared
	cache  map[string]sobek.Value
	extra  map[string]sobek.Value // what the script set on it
	parsed sobek.Value            // json() cache
}

var responseKeys = []string{"status", "status_text", "body", "headers", "cookies", "timings", "url", "remote_ip",
	"remote_port", "proto", "error", "error_code", "request", "tls_version", "tls_cipher_suite", "ocsp",
	"json", "html", "clickLink", "submitForm"}

func (m *module) responseObject(p *prepared, r *netclient.Response) *sobek.Object {
	return m.rt.NewDynamicObject(&jsResponse{m: m, r: r, p: p})
}

func (j *jsResponse) Get(key string) sobek.Value {
	if v, ok := j.extra[key]; ok {
		return v
	}
	if v, ok := j.cache[key]; ok {
		return v
	}
	rt, r := j.m.rt, j.r
	var v sobek.Value
	switch key {
	case "status":
		return rt.ToValue(r.Status)
	case "status_text":
		return rt.ToValue(r.StatusText)
	case "url":
		if r.URL == nil {
			return rt.ToValue("")
		}
		if len(r.Redirects) == 0 && j.p.info.URL != "" {
			return rt.ToValue(j.p.info.URL)
		}
		v = rt.ToValue(r.URL.String())
	case "remote_ip":
		return rt.ToValue(r.RemoteIP)
	case "remote_port":
		return rt.ToValue(r.RemotePort)
	case "proto":
		return rt.ToValue(r.Proto)
	case "error":
		return rt.ToValue(r.Error)
	case "error_code":
		return rt.ToValue(r.ErrorCode)
	case "tls_version":
		return rt.ToValue(r.TLSVersion)
	case "tls_cipher_suite":
		return rt.ToValue(r.TLSCipherSuite)
	case "body":
		switch {
		case j.p.responseType == "none" || (r.Body == nil && r.Status == 0):
			v = sobek.Null()
		case j.p.responseType == "binary":
			v = rt.ToValue(rt.NewArrayBuffer(r.Body))
		default:
			v = rt.ToValue(string(r.Body))
		}
	case "headers":
		o := rt.NewObject()
		if r.Status != 0 {
			for k, vs := range r.Header() {
				_ = o.Set(k, strings.Join(vs, ", "))
			}
		}
		v = o
	case "cookies":
		v = j.cookies()
	case "timings":
		t := &r.Timings
		o := rt.NewObject()
		ms := func(d interface{ Nanoseconds() int64 }) float64 { return float64(d.Nanoseconds()) / 1e6 }
		_ = o.Set("blocked", ms(t.Blocked))
		_ = o.Set("connecting", ms(t.Connecting))
		_ = o.Set("tls_handshaking", ms(t.TLSHandshaking))
		_ = o.Set("sending", ms(t.Sending))
		_ = o.Set("waiting", ms(t.Waiting))
		_ = o.Set("receiving", ms(t.Receiving))
		_ = o.Set("duration", ms(t.Duration))
		v = o
	case "request":
		v = j.request()
	case "ocsp":
		o := rt.NewObject()
		_ = o.Set("produced_at", 0)
		_ = o.Set("this_update", 0)
		_ = o.Set("next_update", 0)
		_ = o.Set("revoked_at", 0)
		_ = o.Set("revocation_reason", "")
		_ = o.Set("status", "")
		v = o
	case "json":
		v = rt.ToValue(func(c sobek.FunctionCall) sobek.Value { return j.json(c.Argument(0)) })
	case "html":
		v = rt.ToValue(func(sobek.FunctionCall) sobek.Value {
			j.m.throwUnsupported("Response.html() (k6/html)", "the engine has no HTML parser; search res.body with a regular expression or string methods")
			return nil
		})
	case "clickLink", "submitForm":
		v = rt.ToValue(func(sobek.FunctionCall) sobek.Value {
			j.m.throwUnsupported("Response."+key+"()", "it needs an HTML parser; build the request yourself with http.get/http.post")
			return nil
		})
	default:
		return nil
	}
	if j.cache == nil {
		j.cache = map[string]sobek.Value{}
	}
	j.cache[key] = v
	return v
}

func (j *jsResponse) Set(key string, val sobek.Value) bool {
	if j.extra == nil {
		j.extra = map[string]sobek.Value{}
	}
	j.extra[key] = val
	return true
}

func (j *jsResponse) Has(key string) bool {
	if _, ok := j.extra[key]; ok {
		return true
	}
	for _, k := range responseKeys {
		if k == key {
			return true
		}
	}
	return false
}

func (j *jsResponse) Delete(key string) bool {
	delete(j.extra, key)
	return true
}

func (j *jsResponse) Keys() []string {
	keys := append([]string(nil), responseKeys[:len(responseKeys)-4]...) // methods are not enumerable data
	for k := range j.extra {
		keys = append(keys, k)
	}
	return keys
}

// cookies is Response.cookies: name -> [{name, value, domain, path, http_only, secure, max_age, expires}].
func (j *jsResponse) cookies() sobek.Value {
	rt := j.m.rt
	o := rt.NewObject()
	byName := map[string][]any{}
	var order []string
	for _, c := range j.r.Cookies {
		if _, ok := byName[c.Name]; !ok {
			order = append(order, c.Name)
		}
		expires := ""
		if !c.Expires.IsZero() {
			expires = c.Expires.UTC().Format(http.TimeFormat)
		}
		co := rt.NewObject()
		_ = co.Set("name", c.Name)
		_ = co.Set("value", c.Value)
		_ = co.Set("domain", c.Domain)
		_ = co.Set("path", c.Path)
		_ = co.Set("http_only", c.HttpOnly)
		_ = co.Set("secure", c.Secure)
		_ = co.Set("max_age", c.MaxAge)
		_ = co.Set("expires", expires)
		byName[c.Name] = append(byName[c.Name], co)
	}
	for _, n := range order {
		_ = o.Set(n, rt.NewArray(byName[n]...))
	}
	return o
}

// request is Response.request: method, url, headers (name -> [values]), body, cookies (name -> [{name, value, replace}]).
func (j *jsResponse) request() sobek.Value {
	rt, r := j.m.rt, j.r
	o := rt.NewObject()
	_ = o.Set("method", r.Method)
	if r.URL != nil {
		_ = o.Set("url", r.URL.String())
	} else {
		_ = o.Set("url", "")
	}
	h := rt.NewObject()
	hdr := r.RequestHeader()
	names := make([]string, 0, len(hdr))
	for k := range hdr {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		vals := make([]any, len(hdr[k]))
		for i, s := range hdr[k] {
			vals[i] = s
		}
		_ = h.Set(k, rt.NewArray(vals...))
	}
	_ = o.Set("headers", h)
	_ = o.Set("body", string(r.RequestBody))
	c := rt.NewObject()
	byName := map[string][]any{}
	var order []string
	for _, rc := range r.RequestCookies {
		if _, ok := byName[rc.Name]; !ok {
			order = append(order, rc.Name)
		}
		co := rt.NewObject()
		_ = co.Set("name", rc.Name)
		_ = co.Set("value", rc.Value)
		_ = co.Set("replace", rc.Replace)
		byName[rc.Name] = append(byName[rc.Name], co)
	}
	for _, n := range order {
		_ = c.Set(n, rt.NewArray(byName[n]...))
	}
	_ = o.Set("cookies", c)
	return o
}

// json is Response.json([selector]); the parsed body is cached.
func (j *jsResponse) json(selector sobek.Value) sobek.Value {
	rt := j.m.rt
	if j.parsed == nil {
		if j.r.Body == nil {
			j.m.throwf("cannot parse the response body as JSON: the body is empty or was discarded (see responseType)")
		}
		if j.m.parse == nil {
			j.m.throwf("JSON is not available")
		}
		v, err := j.m.parse(sobek.Undefined(), rt.ToValue(string(j.r.Body)))
		if err != nil {
			panic(err)
		}
		j.parsed = v
	}
	if isNullish(selector) || selector.String() == "" {
		return j.parsed
	}
	return selectPath(rt, j.parsed, selector.String())
}

// selectPath follows a GJSON-style dotted path ("a.b.0.c", "list.#" for a length, "\." for a literal dot).
func selectPath(rt *sobek.Runtime, v sobek.Value, path string) sobek.Value {
	for _, seg := range splitPath(path) {
		o, ok := v.(*sobek.Object)
		if !ok || isNullish(v) {
			return sobek.Undefined()
		}
		if seg == "#" && o.ClassName() == "Array" {
			return o.Get("length")
		}
		if o.ClassName() == "Array" {
			if _, err := strconv.Atoi(seg); err != nil {
				return sobek.Undefined()
			}
		}
		next := o.Get(seg)
		if next == nil {
			return sobek.Undefined()
		}
		v = next
	}
	return v
}

func splitPath(path string) []string {
	var segs []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path):
			i++
			cur.WriteByte(path[i])
		case c == '.':
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(segs, cur.String())
}
