package modules

import (
	"time"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/vu"
)

func init() {
	Register("k6/execution", newExecution)
}

func newExecution(s *VUState) (*sobek.Object, error) {
	rt := s.Runtime
	getters := func(props map[string]func() any) *sobek.Object {
		o := rt.NewObject()
		for name, get := range props {
			_ = o.DefineAccessorProperty(name, rt.ToValue(func(sobek.FunctionCall) sobek.Value {
				return rt.ToValue(get())
			}), nil, sobek.FLAG_FALSE, sobek.FLAG_TRUE)
		}
		return o
	}
	state := func() vu.ExecutionState { return s.Activation.State }
	scenario := func(what string) vu.ExecutionState {
		if s.Activation.State == nil || s.Activation.Scenario == "" {
			throwError(rt, "exec.scenario."+what+" is only available while a scenario runs (not in the init context, setup() or teardown())")
		}
		return s.Activation.State
	}

	instance := getters(map[string]func() any{
		"iterationsInterrupted": func() any { return orZero(state(), vu.ExecutionState.IterationsInterrupted) },
		"iterationsCompleted":   func() any { return orZero(state(), vu.ExecutionState.IterationsCompleted) },
		"vusActive":             func() any { return orZero(state(), vu.ExecutionState.VUsActive) },
		"vusInitialized":        func() any { return orZero(state(), vu.ExecutionState.VUsInitialized) },
		"currentTestRunDuration": func() any {
			st := state()
			if st == nil || st.TestStart().IsZero() {
				return 0.0
			}
			return float64(time.Since(st.TestStart())) / float64(time.Millisecond)
		},
	})

	scen := getters(map[string]func() any{
		"name":     func() any { scenario("name"); return s.Activation.Scenario },
		"executor": func() any { scenario("executor"); return s.Activation.Executor },
		"startTime": func() any {
			return scenario("startTime").ScenarioStart().UnixMilli()
		},
		"progress":            func() any { return scenario("progress").ScenarioProgress() },
		"iterationInInstance": func() any { scenario("iterationInInstance"); return s.Iteration.InInstance },
		"iterationInTest":     func() any { scenario("iterationInTest"); return s.Iteration.InTest },
	})

	var options sobek.Value
	test := getters(map[string]func() any{
		"options": func() any {
			if options == nil {
				raw := s.Options
				if len(raw) == 0 && s.Activation.State != nil {
					raw = s.Activation.State.Options()
				}
				options = sobek.Null()
				if len(raw) > 0 {
					v, err := parseJSON(rt, string(raw))
					if err != nil {
						rethrow(rt, err)
					}
					options = v
				}
			}
			return options
		},
	})
	_ = test.Set("abort", func(call sobek.FunctionCall) sobek.Value {
		reason := ""
		if a := call.Argument(0); !sobek.IsUndefined(a) {
			reason = a.String()
		}
		if st := s.Activation.State; st != nil {
			st.Abort(reason)
		}
		// Uncatchable: the script stops at its next instruction and the runtime reports the abort.
		rt.Interrupt(&AbortError{Reason: reason})
		return sobek.Undefined()
	})
	_ = test.Set("fail", func(call sobek.FunctionCall) sobek.Value {
		reason := ""
		if a := call.Argument(0); !sobek.IsUndefined(a) {
			reason = a.String()
		}
		f, ok := s.Activation.State.(interface{ Fail(reason string) })
		if !ok {
			throwUnsupported(rt, "exec.test.fail()", "it is available only while a scenario runs, on an engine whose scheduler supports it")
		}
		f.Fail(reason)
		return sobek.Undefined()
	})

	tags := rt.NewDynamicObject(&vuTags{s: s})
	metricsObj := rt.NewObject()
	_ = metricsObj.Set("tags", tags)
	_ = metricsObj.Set("metadata", rt.NewObject()) // accepted, but samples carry no metadata here
	vuObj := getters(map[string]func() any{
		"idInInstance":        func() any { return s.IDInInstance },
		"idInTest":            func() any { return s.IDInTest },
		"iterationInInstance": func() any { return s.Counters.InInstance },
		"iterationInScenario": func() any { return s.Counters.InScenario },
	})
	_ = vuObj.Set("tags", tags)
	_ = vuObj.Set("metrics", metricsObj)

	obj := rt.NewObject()
	_ = obj.Set("instance", instance)
	_ = obj.Set("scenario", scen)
	_ = obj.Set("test", test)
	_ = obj.Set("vu", vuObj)
	return obj, nil
}

func orZero(st vu.ExecutionState, f func(vu.ExecutionState) int64) int64 {
	if st == nil {
		return 0
	}
	return f(st)
}

// vuTags is exec.vu.tags (and exec.vu.metrics.tags): reads see every current tag,
// writes set the script's own tags, which every later sample of the VU carries.
type vuTags struct{ s *VUState }

func (t *vuTags) Get(key string) sobek.Value {
	if v, ok := t.s.Tags.Get(key); ok {
		return t.s.Runtime.ToValue(v)
	}
	return nil
}

func (t *vuTags) Set(key string, val sobek.Value) bool {
	switch val.Export().(type) {
	case string, int64, float64, bool:
		t.s.SetVUTag(key, val.String())
	default:
		// As k6 without the throw option: warn and drop the value.
		t.s.Logf("warning", "exec.vu.tags: the tag "+key+" must be a string, number or boolean; "+val.String()+" is dropped")
	}
	return true
}

func (t *vuTags) Has(key string) bool {
	_, ok := t.s.Tags.Get(key)
	return ok
}

func (t *vuTags) Delete(key string) bool {
	t.s.DeleteVUTag(key)
	return true
}

func (t *vuTags) Keys() []string {
	keys := make([]string, 0, t.s.Tags.Len())
	t.s.Tags.Each(func(k, _ string) { keys = append(keys, k) })
	return keys
}

// parseJSON makes a plain JS value of JSON text, with the runtime's JSON.parse.
func parseJSON(rt *sobek.Runtime, text string) (sobek.Value, error) {
	parse, ok := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
	if !ok {
		return nil, errNoJSON
	}
	return parse(sobek.Undefined(), rt.ToValue(text))
}

type constError string

func (e constError) Error() string { return string(e) }

const errNoJSON = constError("the runtime has no JSON.parse")
