package js

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"sync"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/js/modules"
	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// jsVU is one VU: a sobek runtime that ran the script's init code.
type jsVU struct {
	r       *Runner
	rt      *sobek.Runtime
	state   *modules.VUState
	exports *sobek.Object
	funcs   map[string]sobek.Callable
	mods    map[string]*sobek.Object
	intr    interrupter

	parse, stringify sobek.Callable
	rejected         []*sobek.Promise // rejected without a handler, since the last check

	baseTags      *metrics.TagSet
	scenario      string
	scenarioIters map[string]*int64
	iterations    int64 // in the instance, over all scenarios
	envIsBase     bool

	setupRaw  json.RawMessage
	setupData sobek.Value
}

func (r *Runner) newVU(ctx context.Context, idInInstance, idInTest uint64) (*jsVU, error) {
	rt := sobek.New()
	v := &jsVU{
		r: r, rt: rt,
		funcs:         map[string]sobek.Callable{},
		mods:          map[string]*sobek.Object{},
		scenarioIters: map[string]*int64{},
		envIsBase:     true,
	}
	v.intr.rt = rt
	v.state = &modules.VUState{
		Runtime: rt, Registry: r.cfg.Registry, Samples: r.cfg.Samples,
		IDInInstance: idInInstance, IDInTest: idInTest,
		Init: true, Options: r.consolidated, Env: r.cfg.Env,
		Shared: r.shared, Loop: modules.NewEventLoop(), Log: r.log,
	}
	v.baseTags = r.testTags
	v.state.SetBaseTags(r.testTags)
	rt.SetPromiseRejectionTracker(v.trackRejection)
	json := rt.Get("JSON").ToObject(rt)
	v.parse, _ = sobek.AssertFunction(json.Get("parse"))
	v.stringify, _ = sobek.AssertFunction(json.Get("stringify"))
	if err := v.setGlobals(); err != nil {
		return nil, err
	}

	v.intr.watch(ctx)
	wrapper, err := rt.RunProgram(r.program)
	if err != nil {
		v.close()
		return nil, v.initError(ctx, err)
	}
	run, ok := sobek.AssertFunction(wrapper)
	if !ok {
		v.close()
		return nil, &ScriptError{Message: "the bundled script did not make its wrapper function"}
	}
	module, exports := rt.NewObject(), rt.NewObject()
	_ = module.Set("exports", exports)
	ret, err := safeCall(run, module, exports, rt.ToValue(v.require))
	if err == nil {
		_, err = v.settle(ctx, ret)
	}
	if err != nil {
		v.close()
		return nil, v.initError(ctx, err)
	}
	v.state.Init = false
	v.exports = module.Get("exports").ToObject(rt)
	return v, nil
}

func (v *jsVU) initError(ctx context.Context, err error) error {
	v.state.Loop.Reset()
	err = scriptError(err)
	if ctx != nil && ctx.Err() != nil && !isAbort(err) {
		return fmt.Errorf("the init code was interrupted: %w", ctx.Err())
	}
	return err
}

func (v *jsVU) close() { v.intr.watch(nil) }

// require gives the bundle k6's modules (the only imports left external), made once per VU.
func (v *jsVU) require(call sobek.FunctionCall) sobek.Value {
	name := call.Argument(0).String()
	if m, ok := v.mods[name]; ok {
		return m
	}
	mk := modules.Lookup(name)
	if mk == nil {
		panic(v.rt.NewGoError(&UnsupportedError{What: fmt.Sprintf("the module %q", name)}))
	}
	m, err := mk(v.state)
	if err != nil {
		panic(v.rt.NewGoError(fmt.Errorf("module %q: %w", name, err)))
	}
	v.mods[name] = m
	return m
}

// function returns an exported function, cached.
func (v *jsVU) function(name string) sobek.Callable {
	if fn, ok := v.funcs[name]; ok {
		return fn
	}
	fn, _ := sobek.AssertFunction(v.exports.Get(name))
	v.funcs[name] = fn
	return fn
}

func (v *jsVU) trackRejection(p *sobek.Promise, op sobek.PromiseRejectionOperation) {
	switch op {
	case sobek.PromiseRejectionReject:
		v.rejected = append(v.rejected, p)
	case sobek.PromiseRejectionHandle:
		for i, q := range v.rejected {
			if q == p {
				v.rejected = append(v.rejected[:i], v.rejected[i+1:]...)
				break
			}
		}
	}
}

// settle runs the event loop until nothing is pending and, when ret is a
// promise (an async function's), returns what it resolved to.
func (v *jsVU) settle(ctx context.Context, ret sobek.Value) (sobek.Value, error) {
	var p *sobek.Promise
	if obj, ok := ret.(*sobek.Object); ok && obj.ClassName() == "Promise" {
		p, _ = obj.Export().(*sobek.Promise)
	}
	if !v.state.Loop.Idle() || (p != nil && p.State() == sobek.PromiseStatePending) {
		if err := v.runLoop(ctx); err != nil {
			if ctx != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return nil, errInterrupted{ctx.Err()}
			}
			return nil, err
		}
	}
	if p != nil {
		v.forget(p)
		switch p.State() {
		case sobek.PromiseStateRejected:
			return nil, rejectionError(p.Result())
		case sobek.PromiseStatePending:
			return nil, &ScriptError{Message: "the promise returned by the script never settled (nothing was left to wait for)"}
		}
		ret = p.Result()
	}
	if len(v.rejected) > 0 {
		reason := v.rejected[0].Result()
		v.rejected = v.rejected[:0]
		se := rejectionError(reason)
		se.Message = "Uncaught (in promise) " + se.Message
		return nil, se
	}
	return ret, nil
}

func (v *jsVU) forget(p *sobek.Promise) {
	for i, q := range v.rejected {
		if q == p {
			v.rejected = append(v.rejected[:i], v.rejected[i+1:]...)
			return
		}
	}
}

// callLifecycle calls setup, teardown or handleSummary and waits for what it started.
func (v *jsVU) callLifecycle(ctx context.Context, name, group string, args ...sobek.Value) (sobek.Value, error) {
	fn := v.function(name)
	if fn == nil {
		return nil, &ScriptError{Message: "the script exports no function " + name}
	}
	v.intr.watch(ctx)
	v.state.Ctx = ctx
	v.state.SetGroup(group)
	ret, err := safeCall(fn, args...)
	if err == nil {
		ret, err = v.settle(ctx, ret)
	}
	if err != nil {
		v.state.Loop.Reset()
		err = scriptError(err)
		if ctx != nil && ctx.Err() != nil && !isAbort(err) {
			return nil, fmt.Errorf("%s() was interrupted: %w", name, ctx.Err())
		}
		return nil, err
	}
	return ret, nil
}

func (v *jsVU) toJSON(val sobek.Value) (string, error) {
	out, err := v.stringify(sobek.Undefined(), val)
	if err != nil {
		return "", scriptError(err)
	}
	if sobek.IsUndefined(out) {
		return "null", nil
	}
	return out.String(), nil
}

func (v *jsVU) fromJSON(raw json.RawMessage) (sobek.Value, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return sobek.Undefined(), nil
	}
	val, err := v.parse(sobek.Undefined(), v.rt.ToValue(string(raw)))
	if err != nil {
		return nil, scriptError(err)
	}
	return val, nil
}

// Activate readies the VU for a scenario.
func (v *jsVU) Activate(p vu.Activation) vu.ActiveVU {
	st := v.state
	v.intr.watch(p.Ctx)
	if p.Scenario != v.scenario {
		// exec.vu.tags last while the VU serves the same scenario.
		st.ResetVUTags()
		v.scenario = p.Scenario
	}
	st.Activation = p
	st.Ctx = p.Ctx
	base := p.Tags
	if base == nil {
		base = v.r.testTags
	}
	if base != v.baseTags {
		v.baseTags = base
		st.SetBaseTags(base)
	}
	st.SetGroup("")
	v.setEnv(p.Env)

	a := &activeVU{v: v, ctx: p.Ctx}
	name := p.Exec
	if name == "" {
		name = "default"
	}
	if a.fn = v.function(name); a.fn == nil {
		a.fail = &ScriptError{Message: fmt.Sprintf("scenario %q runs the function %q, which the script does not export", p.Scenario, name)}
		return a
	}
	if !bytes.Equal(p.SetupData, v.setupRaw) || v.setupData == nil {
		data, err := v.fromJSON(p.SetupData)
		if err != nil {
			a.fail = err
			return a
		}
		v.setupRaw, v.setupData = p.SetupData, data
	}
	a.args = []sobek.Value{v.setupData}
	a.iter = v.scenarioIters[p.Scenario]
	if a.iter == nil {
		a.iter = new(int64)
		v.scenarioIters[p.Scenario] = a.iter
	}
	return a
}

// setEnv sets __ENV: the test's env with the scenario's on top.
func (v *jsVU) setEnv(scenarioEnv map[string]string) {
	if len(scenarioEnv) == 0 {
		if !v.envIsBase {
			v.state.Env = v.r.cfg.Env
			_ = v.rt.Set("__ENV", v.envObject(v.r.cfg.Env))
			v.envIsBase = true
		}
		return
	}
	env := maps.Clone(v.r.cfg.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, scenarioEnv)
	v.state.Env = env
	_ = v.rt.Set("__ENV", v.envObject(env))
	v.envIsBase = false
}

func (v *jsVU) envObject(env map[string]string) *sobek.Object {
	obj := v.rt.NewObject()
	for k, val := range env {
		_ = obj.Set(k, val)
	}
	return obj
}

type activeVU struct {
	v    *jsVU
	ctx  context.Context
	fn   sobek.Callable
	args []sobek.Value // the setup data, made once so that calls don't allocate
	iter *int64        // the VU's iterations in this scenario
	fail error         // set when the scenario can't run on this VU
}

// RunIteration runs the scenario's function once. An exception is logged and
// returned as a *ScriptError; an iteration cut short by the end of the
// activation's context returns an error wrapping the context's error (not
// logged); exec.test.abort() returns an *AbortError.
func (a *activeVU) RunIteration(it vu.Iteration) error {
	if a.fail != nil {
		return a.fail
	}
	if a.ctx != nil && a.ctx.Err() != nil {
		return errInterrupted{a.ctx.Err()}
	}
	v, st := a.v, a.v.state
	st.Iteration = it
	st.Counters = modules.VUCounters{InScenario: *a.iter, InInstance: v.iterations}
	if st.Group != "" {
		st.SetGroup("")
	}
	ret, err := safeCall(a.fn, a.args...)
	if err == nil {
		_, err = v.settle(a.ctx, ret)
	}
	*a.iter++
	v.iterations++
	if err != nil {
		return v.iterationFailed(a.ctx, err)
	}
	if a.ctx != nil && a.ctx.Err() != nil {
		// Ended while the script was stopping (a sleep cut short, say): interrupted, not complete.
		return errInterrupted{a.ctx.Err()}
	}
	return nil
}

func (v *jsVU) iterationFailed(ctx context.Context, err error) error {
	v.state.Loop.Reset()
	v.rejected = v.rejected[:0]
	err = scriptError(err)
	if isAbort(err) {
		return err
	}
	if ctx != nil && ctx.Err() != nil {
		return errInterrupted{ctx.Err()}
	}
	var se *ScriptError
	if errors.As(err, &se) {
		msg := se.Message
		if se.Stack != "" {
			msg += "\n" + se.Stack
		}
		v.r.logLine("error", msg, "stacktrace")
	}
	return err
}

// safeCall calls into the script; a Go panic in a module becomes the call's
// error rather than the end of the engine.
func safeCall(fn sobek.Callable, args ...sobek.Value) (ret sobek.Value, err error) {
	defer recoverInto(&err)
	return fn(sobek.Undefined(), args...)
}

func recoverInto(err *error) {
	if p := recover(); p != nil {
		*err = &ScriptError{Message: fmt.Sprintf("internal error in the engine: %v", p), Stack: string(debug.Stack())}
	}
}

// runLoop runs the VU's event loop, as safeCall calls.
func (v *jsVU) runLoop(ctx context.Context) (err error) {
	defer recoverInto(&err)
	return v.state.Loop.Run(ctx)
}

func isAbort(err error) bool {
	var a *AbortError
	return errors.As(err, &a)
}

// interrupter stops the script's JavaScript when the context it watches ends.
type interrupter struct {
	mu   sync.Mutex
	rt   *sobek.Runtime
	gen  uint64
	stop func() bool
}

// watch replaces the watched context (nil: none) and clears a past interruption.
func (in *interrupter) watch(ctx context.Context) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stop != nil {
		in.stop()
		in.stop = nil
	}
	in.gen++
	in.rt.ClearInterrupt()
	if ctx == nil || ctx.Done() == nil {
		return
	}
	gen := in.gen
	in.stop = context.AfterFunc(ctx, func() {
		in.mu.Lock()
		defer in.mu.Unlock()
		if in.gen == gen {
			in.rt.Interrupt(errInterrupted{ctx.Err()})
		}
	})
}
