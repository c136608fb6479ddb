package http

import (
	"strconv"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/netclient"
)

// batchItem reads one http.batch() entry: a URL, an array [method, url, body, params]
// or an object {method, url, body, params}.
func (m *module) batchItem(v sobek.Value) *prepared {
	o, ok := v.(*sobek.Object)
	if !ok || isNullish(v) {
		return m.prepare("GET", v, sobek.Undefined(), sobek.Undefined())
	}
	if _, isURL := o.Export().(*taggedURL); isURL {
		return m.prepare("GET", v, sobek.Undefined(), sobek.Undefined())
	}
	if o.ClassName() == "Array" {
		arg := func(i int) sobek.Value {
			if x := o.Get(itoa(i)); x != nil {
				return x
			}
			return sobek.Undefined()
		}
		method := "GET"
		if mv := arg(0); !isNullish(mv) {
			method = mv.String()
		}
		return m.prepare(upper(method), arg(1), arg(2), arg(3))
	}
	get := func(k string) sobek.Value {
		if x := o.Get(k); x != nil {
			return x
		}
		return sobek.Undefined()
	}
	method := "GET"
	if mv := get("method"); !isNullish(mv) {
		method = mv.String()
	}
	return m.prepare(upper(method), get("url"), get("body"), get("params"))
}

// batch is http.batch(requests): an array or an object of requests, run in parallel.
func (m *module) batch(c sobek.FunctionCall) sobek.Value {
	if m.vu.Init {
		m.throwf("making requests in the init context is not supported")
	}
	m.checkIteration()
	o, ok := c.Argument(0).(*sobek.Object)
	if !ok || isNullish(c.Argument(0)) {
		m.throwf("http.batch takes an array or an object of requests")
	}
	isArray := o.ClassName() == "Array"
	keys := o.Keys()
	preps := make([]*prepared, len(keys))
	reqs := make([]*netclient.Request, len(keys))
	for i, k := range keys {
		preps[i] = m.batchItem(o.Get(k))
		reqs[i] = preps[i].req
	}
	resps := m.st.client.DoBatch(m.ctx(), reqs, m.st.opts.Batch, m.st.opts.BatchPerHost, nil)
	var out *sobek.Object
	if isArray {
		out = m.rt.NewArray()
	} else {
		out = m.rt.NewObject()
	}
	var firstErr any
	for i, k := range keys {
		func() {
			defer func() {
				if r := recover(); r != nil && firstErr == nil {
					firstErr = r // with throw, the first failure is thrown once all are done
				}
			}()
			m.finish(preps[i], resps[i])
		}()
		_ = out.Set(k, m.responseObject(preps[i], resps[i]))
	}
	if firstErr != nil {
		panic(firstErr)
	}
	return out
}

// asyncRequest is http.asyncRequest(): the request runs off the VU's goroutine and a promise resolves with its response.
func (m *module) asyncRequest(c sobek.FunctionCall) sobek.Value {
	if m.vu.Init {
		m.throwf("making requests in the init context is not supported")
	}
	if m.vu.Loop == nil {
		m.throwUnsupported("http.asyncRequest() without an event loop", "use http.request()")
	}
	m.checkIteration()
	p := m.prepare(upper(c.Argument(0).String()), c.Argument(1), c.Argument(2), c.Argument(3))
	promise, resolve, reject := m.rt.NewPromise()
	done := m.vu.Loop.RegisterCallback()
	ctx := m.ctx()
	go func() {
		resp, _ := m.st.client.Do(ctx, p.req)
		done(func() error {
			defer func() {
				if r := recover(); r != nil {
					if v, ok := r.(sobek.Value); ok {
						_ = reject(v)
						return
					}
					panic(r)
				}
			}()
			m.finish(p, resp)
			return resolve(m.responseObject(p, resp))
		})
	}()
	return m.rt.ToValue(promise)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return strconv.Itoa(i)
}

func upper(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'a' && b[j] <= 'z' {
					b[j] -= 32
				}
			}
			return string(b)
		}
	}
	return s
}
