package http

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/netclient"
)

// jsJar is k6's CookieJar object.
type jsJar struct {
	m       *module
	jar     *netclient.Jar
	methods map[string]sobek.Value
}

func (m *module) newJarObject(jar *netclient.Jar) *sobek.Object {
	j := &jsJar{m: m, jar: jar}
	fn := func(f func(sobek.FunctionCall) sobek.Value) sobek.Value { return m.rt.ToValue(f) }
	j.methods = map[string]sobek.Value{
		"cookiesForURL": fn(j.cookiesForURL),
		"set":           fn(j.set),
		"clear":         fn(j.clear),
		"delete":        fn(j.delete),
	}
	return m.rt.NewDynamicObject(j)
}

func (j *jsJar) Get(key string) sobek.Value { return j.methods[key] }
func (j *jsJar) Set(string, sobek.Value) bool {
	return false
}
func (j *jsJar) Has(key string) bool { _, ok := j.methods[key]; return ok }
func (j *jsJar) Delete(string) bool  { return false }
func (j *jsJar) Keys() []string      { return nil }

func (j *jsJar) url(v sobek.Value) *url.URL {
	j.m.checkIteration()
	u, err := url.Parse(v.String())
	if err != nil || u.Host == "" {
		j.m.throwf("invalid cookie jar URL %q", v.String())
	}
	return u
}

// cookiesForURL returns name -> [values] of the cookies that would be sent to the URL.
func (j *jsJar) cookiesForURL(c sobek.FunctionCall) sobek.Value {
	u := j.url(c.Argument(0))
	rt := j.m.rt
	o := rt.NewObject()
	byName := map[string][]any{}
	var order []string
	for _, ck := range j.jar.Cookies(u) {
		if _, ok := byName[ck.Name]; !ok {
			order = append(order, ck.Name)
		}
		byName[ck.Name] = append(byName[ck.Name], ck.Value)
	}
	for _, n := range order {
		_ = o.Set(n, rt.NewArray(byName[n]...))
	}
	return o
}

// set is jar.set(url, name, value, {domain, path, expires, max_age, secure, http_only}).
func (j *jsJar) set(c sobek.FunctionCall) sobek.Value {
	u := j.url(c.Argument(0))
	ck := &http.Cookie{Name: c.Argument(1).String(), Value: c.Argument(2).String()}
	if o, ok := c.Argument(3).(*sobek.Object); ok && !isNullish(o) {
		if v := o.Get("domain"); !isNullish(v) {
			ck.Domain = v.String()
		}
		if v := o.Get("path"); !isNullish(v) {
			ck.Path = v.String()
		}
		if v := o.Get("max_age"); !isNullish(v) {
			ck.MaxAge = int(v.ToInteger())
		}
		if v := o.Get("secure"); !isNullish(v) {
			ck.Secure = v.ToBoolean()
		}
		if v := o.Get("http_only"); !isNullish(v) {
			ck.HttpOnly = v.ToBoolean()
		}
		if v := o.Get("expires"); !isNullish(v) {
			switch x := v.Export().(type) {
			case int64:
				ck.Expires = time.UnixMilli(x)
			case float64:
				ck.Expires = time.UnixMilli(int64(x))
			default:
				s := v.String()
				t, err := http.ParseTime(s)
				if err != nil {
					t, err = time.Parse(time.RFC3339, s)
				}
				if err != nil {
					if n, nerr := strconv.ParseInt(s, 10, 64); nerr == nil {
						t, err = time.UnixMilli(n), nil
					}
				}
				if err != nil {
					j.m.throwf("invalid cookie expires %q: use an RFC 1123 date like %q", s, http.TimeFormat)
				}
				ck.Expires = t
			}
		}
	}
	if !j.jar.Set(u, ck) {
		j.m.throwf("cookie %q: domain %q does not match the URL %s", ck.Name, ck.Domain, u)
	}
	return sobek.Undefined()
}

func (j *jsJar) clear(c sobek.FunctionCall) sobek.Value {
	j.jar.Clear(j.url(c.Argument(0)))
	return sobek.Undefined()
}

func (j *jsJar) delete(c sobek.FunctionCall) sobek.Value {
	j.jar.Delete(j.url(c.Argument(0)), c.Argument(1).String())
	return sobek.Undefined()
}
