// Package http is k6's "k6/http" module on the engine's own HTTP client
// (internal/netclient), written from k6's public documentation.
package http

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/js/modules"
	"github.com/opsbench/opsbench/engine/internal/netclient"
)

func init() { modules.Register("k6/http", New) }

// vuHTTP is what the module keeps per VU, in VUState.HTTP.
type vuHTTP struct {
	client   *netclient.Client
	emitter  *netclient.Emitter
	opts     *netclient.Options
	expected *netclient.ExpectedStatuses // the VU's response callback; nil: none
	// lastIter tells iterations apart, to do k6's between-iterations work lazily at the next request.
	lastIter iterKey
	urls     map[string]*url.URL
}

type iterKey struct {
	scenario string
	inInst   int64
	inTest   int64
}

// sharedFor returns the state shared by the VUs of a test with these options
// (the DNS cache); a few recent option sets are kept.
var (
	sharedMu    sync.Mutex
	sharedCache []sharedEntry
)

type sharedEntry struct {
	opts   string
	shared *netclient.Shared
}

func sharedFor(raw []byte) (*netclient.Shared, error) {
	key := string(raw)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for _, e := range sharedCache {
		if e.opts == key {
			return e.shared, nil
		}
	}
	o, err := netclient.ParseOptions(raw)
	if err != nil {
		return nil, err
	}
	s := netclient.NewShared(o)
	sharedCache = append(sharedCache, sharedEntry{key, s})
	if len(sharedCache) > 8 {
		sharedCache = sharedCache[1:]
	}
	return s, nil
}

// State returns the VU's HTTP state, making it on first use; the declarative
// runner or tests may use it to reach the VU's client.
func State(vu *modules.VUState) (*netclient.Client, error) {
	st, err := vuState(vu)
	if err != nil {
		return nil, err
	}
	return st.client, nil
}

func vuState(vu *modules.VUState) (*vuHTTP, error) {
	if st, ok := vu.HTTP.(*vuHTTP); ok {
		return st, nil
	}
	shared, err := sharedFor(vu.Options)
	if err != nil {
		return nil, err
	}
	st := &vuHTTP{
		client:   netclient.NewClient(shared),
		opts:     shared.Opts,
		expected: netclient.DefaultExpectedStatuses,
		urls:     map[string]*url.URL{},
	}
	st.emitter = netclient.NewEmitter(vu.Registry, shared.Opts)
	vu.HTTP = st
	return st, nil
}

// module is the k6/http module of one VU.
type module struct {
	vu    *modules.VUState
	rt    *sobek.Runtime
	st    *vuHTTP
	jar   *sobek.Object // http.cookieJar()
	parse sobek.Callable
}

// New makes the k6/http module for a VU.
func New(vu *modules.VUState) (*sobek.Object, error) {
	st, err := vuState(vu)
	if err != nil {
		return nil, err
	}
	rt := vu.Runtime
	m := &module{vu: vu, rt: rt, st: st}
	if jsonObj := rt.Get("JSON"); jsonObj != nil {
		m.parse, _ = sobek.AssertFunction(jsonObj.ToObject(rt).Get("parse"))
	}
	obj := rt.NewObject()
	set := func(name string, fn func(sobek.FunctionCall) sobek.Value) { _ = obj.Set(name, fn) }
	set("request", func(c sobek.FunctionCall) sobek.Value {
		return m.doCall(strings.ToUpper(c.Argument(0).String()), c.Argument(1), c.Argument(2), c.Argument(3))
	})
	withBody := func(method string) func(sobek.FunctionCall) sobek.Value {
		return func(c sobek.FunctionCall) sobek.Value {
			return m.doCall(method, c.Argument(0), c.Argument(1), c.Argument(2))
		}
	}
	noBody := func(method string) func(sobek.FunctionCall) sobek.Value {
		return func(c sobek.FunctionCall) sobek.Value {
			return m.doCall(method, c.Argument(0), sobek.Undefined(), c.Argument(1))
		}
	}
	set("get", noBody("GET"))
	set("head", noBody("HEAD"))
	set("post", withBody("POST"))
	set("put", withBody("PUT"))
	set("patch", withBody("PATCH"))
	set("del", withBody("DELETE"))
	set("options", withBody("OPTIONS"))
	set("asyncRequest", m.asyncRequest)
	set("batch", m.batch)
	set("url", m.taggedURL)
	set("file", m.file)
	set("expectedStatuses", m.expectedStatuses)
	set("setResponseCallback", m.setResponseCallback)
	set("cookieJar", func(sobek.FunctionCall) sobek.Value {
		m.checkIteration()
		if m.jar == nil {
			m.jar = m.newJarObject(st.client.Jar())
		}
		return m.jar
	})
	_ = obj.Set("CookieJar", func(sobek.ConstructorCall) *sobek.Object { return m.newJarObject(netclient.NewJar()) })
	for k, v := range map[string]string{
		"TLS_1_0": "tls1.0", "TLS_1_1": "tls1.1", "TLS_1_2": "tls1.2", "TLS_1_3": "tls1.3",
		"OCSP_STATUS_GOOD": "good", "OCSP_STATUS_REVOKED": "revoked", "OCSP_STATUS_SERVER_FAILED": "server_failed",
		"OCSP_STATUS_UNKNOWN": "unknown", "OCSP_REASON_UNSPECIFIED": "unspecified", "OCSP_REASON_KEY_COMPROMISE": "key_compromise",
		"OCSP_REASON_CA_COMPROMISE": "ca_compromise", "OCSP_REASON_AFFILIATION_CHANGED": "affiliation_changed",
		"OCSP_REASON_SUPERSEDED": "superseded", "OCSP_REASON_CESSATION_OF_OPERATION": "cessation_of_operation",
		"OCSP_REASON_CERTIFICATE_HOLD": "certificate_hold", "OCSP_REASON_REMOVE_FROM_CRL": "remove_from_crl",
		"OCSP_REASON_PRIVILEGE_WITHDRAWN": "privilege_withdrawn", "OCSP_REASON_AA_COMPROMISE": "aa_compromise",
	} {
		_ = obj.Set(k, v)
	}
	_ = obj.Set("default", obj)
	return obj, nil
}

// checkIteration does, at the first use in a new iteration, what k6 does
// between a VU's iterations (cookie jar reset, connections dropped with noVUConnectionReuse).
func (m *module) checkIteration() {
	k := iterKey{scenario: m.vu.Activation.Scenario, inInst: m.vu.Counters.InInstance, inTest: m.vu.Iteration.InTest}
	if k != m.st.lastIter {
		m.st.lastIter = k
		m.st.client.IterationEnd()
	}
}

// throwf throws a JS error.
func (m *module) throwf(format string, args ...any) {
	panic(m.rt.NewGoError(fmt.Errorf(format, args...)))
}

func (m *module) throwUnsupported(what, hint string) {
	panic(m.rt.NewGoError(&modules.UnsupportedError{What: what, Hint: hint}))
}

func (m *module) ctx() context.Context {
	if m.vu.Ctx != nil {
		return m.vu.Ctx
	}
	return context.Background()
}

// doCall runs one request from JS and returns its Response object.
func (m *module) doCall(method string, urlArg, body, params sobek.Value) sobek.Value {
	if m.vu.Init {
		panic(m.rt.NewGoError(errors.New("making requests in the init context is not supported")))
	}
	m.checkIteration()
	p := m.prepare(method, urlArg, body, params)
	resp, _ := m.st.client.Do(m.ctx(), p.req)
	m.finish(p, resp)
	return m.responseObject(p, resp)
}

// finish emits a response's samples and reports its error as k6 does (a warning, or an exception with throw).
func (m *module) finish(p *prepared, resp *netclient.Response) {
	m.st.emitter.Emit(m.vu.Samples, m.vu.Tags, resp, &p.info, m.st.client)
	if resp.RedirectLimitHit {
		m.vu.Logf("warning", fmt.Sprintf("Stopped after %d redirects and returned the redirection; pass { redirects: n } in request params or set global maxRedirects to silence this", len(resp.Redirects)))
	}
	if resp.Error != "" && !resp.Aborted {
		if m.st.opts.Throw {
			panic(m.rt.NewGoError(&netclient.Error{Code: resp.ErrorCode, Msg: resp.Error}))
		}
		m.vu.Logf("warning", fmt.Sprintf("Request Failed: %s %s: %s", resp.Method, p.info.URL, resp.Error))
	}
}
