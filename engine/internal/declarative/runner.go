package declarative

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/netclient"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// Runner runs one declarative workload; it implements vu.Runner.
type Runner struct {
	prog    *program
	options json.RawMessage
	env     map[string]string
	reg     *metrics.Registry
	samples metrics.Sink

	mu       sync.Mutex
	httpOpts *netclient.Options
	shared   *netclient.Shared
	testTags *metrics.TagSet
	// byTags caches the TagSets of each scenario's tags (one entry per scenario).
	byTags map[*metrics.TagSet]*requestTags
	// lastData caches the parsed setup data, which every VU is handed as the same JSON.
	lastDataRaw   string
	lastDataFirst *byte
	lastData      *setupData
}

var _ vu.Runner = (*Runner)(nil)

// Load reads a declarative workload file (see Sniff). env is the test's __ENV:
// OPSBENCH_BASE_URL there is the target (trailing slash removed; default
// http://127.0.0.1:8080), env.NAME templates read it. A bad file is a *LoadError.
func Load(path string, env map[string]string, reg *metrics.Registry, samples metrics.Sink) (*Runner, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &LoadError{Msg: fmt.Sprintf("cannot read %s: %v", path, err)}
	}
	return New(data, env, reg, samples)
}

// New is Load from the file's content.
func New(data []byte, env map[string]string, reg *metrics.Registry, samples metrics.Sink) (*Runner, error) {
	f, err := decodeFile(data)
	if err != nil {
		return nil, err
	}
	base := DefaultBaseURL
	if v := env["OPSBENCH_BASE_URL"]; v != "" {
		base = v
	}
	// The script's (__ENV.OPSBENCH_BASE_URL || default).replace(/\/$/, ""): one trailing slash.
	base = strings.TrimSuffix(base, "/")
	prog, err := compile(f.Program, base)
	if err != nil {
		return nil, err
	}
	if reg == nil {
		reg = metrics.NewRegistry()
	}
	if samples == nil {
		samples = metrics.SinkFunc(func([]metrics.Sample) {})
	}
	return &Runner{prog: prog, options: f.Options, env: env, reg: reg, samples: samples,
		testTags: metrics.NewTags(nil), byTags: map[*metrics.TagSet]*requestTags{}}, nil
}

// SetOptions gives the test's consolidated options: the HTTP client's options
// (blockHostnames, hosts, userAgent, ...) and the test-wide tags that setup's
// samples carry. Call it before Setup and NewVU; without it the workload's own options apply.
func (r *Runner) SetOptions(consolidated json.RawMessage) error {
	o, err := netclient.ParseOptions(consolidated)
	if err != nil {
		return err
	}
	var t struct {
		Tags map[string]string `json:"tags"`
	}
	if len(consolidated) > 0 {
		if err := json.Unmarshal(consolidated, &t); err != nil {
			return fmt.Errorf("consolidated options: %w", err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setHTTPOptions(o)
	r.testTags = metrics.NewTags(t.Tags)
	return nil
}

func (r *Runner) setHTTPOptions(o *netclient.Options) {
	if r.prog.noConnectionReuse {
		o.NoConnectionReuse = true
	}
	r.httpOpts, r.shared = o, netclient.NewShared(o)
}

// http returns the HTTP client state all VUs share, made from the workload's options unless SetOptions came first.
func (r *Runner) http() (*netclient.Shared, *netclient.Options, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shared == nil {
		o, err := netclient.ParseOptions(r.options)
		if err != nil {
			return nil, nil, &LoadError{Field: "options", Msg: err.Error()}
		}
		r.setHTTPOptions(o)
	}
	return r.shared, r.httpOpts, nil
}

func (r *Runner) Options() json.RawMessage { return r.options }

// HasExec: a declarative workload has only the default function.
func (r *Runner) HasExec(name string) bool { return name == "default" }

func (r *Runner) Teardown(context.Context, json.RawMessage) error { return nil }

func (r *Runner) HandleSummary(context.Context, map[string]any) (map[string]string, bool, error) {
	return nil, false, nil
}

// requestTags are the TagSets of one scenario (or of setup): the base tags
// (the scenario's with group) and, per request with expectStatus, its check's.
type requestTags struct {
	base   *metrics.TagSet
	checks []*metrics.TagSet // by request index
}

func newRequestTags(base *metrics.TagSet, reqs []*request) *requestTags {
	t := &requestTags{base: base, checks: make([]*metrics.TagSet, len(reqs))}
	for i, q := range reqs {
		if q.expect != nil {
			t.checks[i] = base.With(map[string]string{"check": q.checkName})
		}
	}
	return t
}

func (r *Runner) scenarioTags(tags *metrics.TagSet) *requestTags {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.byTags[tags]; ok {
		return t
	}
	t := newRequestTags(tags.With(map[string]string{"group": ""}), r.prog.requests)
	if len(r.byTags) >= 64 {
		clear(r.byTags)
	}
	r.byTags[tags] = t
	return t
}

// VU is one virtual user; it is its own ActiveVU.
type VU struct {
	r        *Runner
	prog     *program
	idInTest uint64
	client   *netclient.Client
	emitter  *netclient.Emitter
	c        *ictx
	reqs     []vuRequest
	buf      []byte
	timer    *time.Timer

	ctx  context.Context
	tags *requestTags
	// iterInScenario is exec.vu.iterationInScenario: it goes on where it was when the VU serves the same scenario again.
	iterInScenario *int64
	scenarioIters  map[string]*int64
	iterInTest     int64
}

// vuRequest is one request's reusable state in a VU.
type vuRequest struct {
	req netclient.Request
	// header and headerClose carry the request's dynamic headers (rendered into them per request).
	header, headerClose http.Header
	info                netclient.SampleInfo
}

var _ vu.ActiveVU = (*VU)(nil)

// NewVU makes a VU: its own HTTP client (connections, cookies), random source and key pickers.
func (r *Runner) NewVU(_ context.Context, _, idInTest uint64) (vu.VU, error) {
	shared, opts, err := r.http()
	if err != nil {
		return nil, err
	}
	v := &VU{r: r, prog: r.prog, idInTest: idInTest, client: netclient.NewClient(shared),
		emitter: netclient.NewEmitter(r.reg, opts), ctx: context.Background(), buf: make([]byte, 0, 256)}
	v.c = newIctx(r.prog, rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
	v.c.vu = int64(idInTest)
	v.c.counter = func() int64 { return v.iterInTest }
	v.c.env = r.env
	v.reqs = make([]vuRequest, len(r.prog.requests))
	for i, q := range r.prog.requests {
		v.reqs[i] = newVURequest(q)
	}
	return v, nil
}

func newVURequest(q *request) vuRequest {
	vr := vuRequest{req: netclient.Request{Method: q.method, Timeout: q.timeout}, info: netclient.SampleInfo{Name: q.tag, Expected: q.expected}}
	if q.dynamicHeaders {
		vr.header, vr.headerClose = q.header.Clone(), q.headerClose.Clone()
		for _, h := range q.headers {
			if !h.value.constant {
				vr.header[h.key], vr.headerClose[h.key] = []string{""}, []string{""}
			}
		}
	}
	return vr
}

// Activate readies the VU for a scenario: its tags, env and setup's data.
func (v *VU) Activate(a vu.Activation) vu.ActiveVU {
	v.ctx = a.Ctx
	if v.ctx == nil {
		v.ctx = context.Background()
	}
	v.tags = v.r.scenarioTags(a.Tags)
	v.c.env = v.r.env
	if a.Env != nil {
		v.c.env = a.Env
	}
	v.c.data = v.r.setupData(a.SetupData)
	if v.scenarioIters == nil {
		v.scenarioIters = map[string]*int64{}
	}
	if v.iterInScenario = v.scenarioIters[a.Scenario]; v.iterInScenario == nil {
		v.iterInScenario = new(int64)
		v.scenarioIters[a.Scenario] = v.iterInScenario
	}
	return v
}

// RunIteration runs the default function once: the sequence, or one request
// chosen by weight; the last request says "Connection: close" every
// reconnectEvery iterations; then the think time.
func (v *VU) RunIteration(it vu.Iteration) error {
	ctx := v.ctx
	if ctx.Err() != nil {
		return nil
	}
	prog := v.prog
	c := v.c
	c.reset()
	c.iter = *v.iterInScenario
	v.iterInTest = it.InTest
	*v.iterInScenario++
	defer v.client.IterationEnd()

	closing := prog.reconnectEvery > 0 && (c.iter+1)%prog.reconnectEvery == 0
	if prog.weighted {
		i := prog.pick.pick(c.random)
		if v.send(ctx, prog.requests[i], &v.reqs[i], c, closing, v.tags.base, v.tags.checks[i]).Aborted {
			return nil
		}
	} else {
		last := len(prog.requests) - 1
		for i, q := range prog.requests {
			if ctx.Err() != nil || v.send(ctx, q, &v.reqs[i], c, closing && i == last, v.tags.base, v.tags.checks[i]).Aborted {
				return nil
			}
		}
	}
	if prog.thinkMax > 0 {
		d := prog.thinkMin
		if prog.thinkMax > prog.thinkMin {
			d += c.random() * (prog.thinkMax - prog.thinkMin)
		}
		v.sleep(ctx, time.Duration(d*float64(time.Second)))
	}
	return nil
}

// sleep waits d or until ctx ends.
func (v *VU) sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	if v.timer == nil {
		v.timer = time.NewTimer(d)
	} else {
		v.timer.Reset(d)
	}
	select {
	case <-ctx.Done():
		v.timer.Stop()
	case <-v.timer.C:
	}
}

// send sends one request as the script's obSend does: headers, URL and body
// rendered in that order, then k6's HTTP samples and, with expectStatus, the check.
func (v *VU) send(ctx context.Context, q *request, vr *vuRequest, c *ictx, closing bool, tags, checkTags *metrics.TagSet) *netclient.Response {
	req := &vr.req
	switch {
	case q.dynamicHeaders:
		h := vr.header
		if closing {
			h = vr.headerClose
		}
		for _, hd := range q.headers {
			if !hd.value.constant {
				v.buf = c.render(v.buf[:0], hd.value)
				h[hd.key][0] = string(v.buf)
			}
		}
		req.Header = h
	case closing:
		req.Header = q.headerClose
	default:
		req.Header = q.header
	}
	if q.path.constant {
		req.URL, vr.info.URL = q.url, q.urlText
	} else {
		v.buf = append(v.buf[:0], v.prog.baseURL...)
		v.buf = c.render(v.buf, q.path)
		s := string(v.buf)
		u, err := url.Parse(s)
		if err != nil {
			u = nil // netclient answers an invalid URL with k6's error, as a request of the script would get
		}
		req.URL, vr.info.URL = u, s
	}
	switch {
	case q.body == nil:
		req.Body = nil
	case q.body.constant:
		req.Body = q.bodyBytes
	default:
		// A fresh slice: the transport may still hold the previous body.
		req.Body = c.render(make([]byte, 0, q.body.size), q.body)
	}
	resp, _ := v.client.Do(ctx, req)
	v.emitter.Emit(v.r.samples, tags, resp, &vr.info, v.client)
	if q.expect != nil && !resp.Aborted {
		pass := 0.0
		if slices.Contains(q.expect, resp.Status) {
			pass = 1
		}
		v.r.samples.AddSamples([]metrics.Sample{{Metric: v.r.reg.Builtin.Checks, Time: time.Now(), Value: pass, Tags: checkTags}})
	}
	return resp
}
