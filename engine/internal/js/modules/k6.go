package modules

import (
	"context"
	"math/rand"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

func init() {
	Register("k6", newK6)
}

type checkKey struct {
	base *metrics.TagSet
	name string
}

// maxCachedChecks bounds the per-VU cache of check TagSets for scripts that make check names up on the fly.
const maxCachedChecks = 1024

func newK6(s *VUState) (*sobek.Object, error) {
	rt := s.Runtime
	obj := rt.NewObject()
	checkTags := map[checkKey]*metrics.TagSet{}

	tagsForCheck := func(name string, extra sobek.Value) *metrics.TagSet {
		if extraObj, ok := extra.(*sobek.Object); ok && !sobek.IsUndefined(extra) && !sobek.IsNull(extra) {
			m := s.Tags.Map()
			for _, k := range extraObj.Keys() {
				m[k] = extraObj.Get(k).String()
			}
			m["check"] = name
			return metrics.NewTags(m)
		}
		key := checkKey{s.Tags, name}
		if t, ok := checkTags[key]; ok {
			return t
		}
		if len(checkTags) >= maxCachedChecks {
			clear(checkTags)
		}
		t := s.Tags.With(map[string]string{"check": name})
		checkTags[key] = t
		return t
	}

	_ = obj.Set("check", func(call sobek.FunctionCall) sobek.Value {
		if s.Init {
			throwError(rt, "check() can't be used in the init context; call it from an exported function")
		}
		val := call.Argument(0)
		sets, ok := call.Argument(1).(*sobek.Object)
		if !ok {
			panic(rt.NewTypeError("check() needs an object of checks as its second argument"))
		}
		all := true
		for _, name := range sets.Keys() {
			v := sets.Get(name)
			if fn, ok := sobek.AssertFunction(v); ok {
				res, err := fn(sobek.Undefined(), val)
				if err != nil {
					rethrow(rt, err) // as k6: an exception in a check ends the iteration
				}
				v = res
			}
			passed := v.ToBoolean()
			value := 0.0
			if passed {
				value = 1
			} else {
				all = false
			}
			s.Emit(s.Registry.Builtin.Checks, value, tagsForCheck(name, call.Argument(2)))
		}
		return rt.ToValue(all)
	})

	_ = obj.Set("group", func(call sobek.FunctionCall) sobek.Value {
		if s.Init {
			throwError(rt, "group() can't be used in the init context; call it from an exported function")
		}
		name := call.Argument(0).String()
		if strings.Contains(name, "::") {
			throwError(rt, `group name "`+name+`" must not contain "::", which separates nested groups`)
		}
		fnVal := call.Argument(1)
		fn, ok := sobek.AssertFunction(fnVal)
		if !ok {
			panic(rt.NewTypeError("group() needs a function as its second argument"))
		}
		if isAsync(fnVal) {
			throwError(rt, "group() doesn't support async functions")
		}
		parent := s.Group
		s.SetGroup(parent + "::" + name)
		defer s.SetGroup(parent)
		start := time.Now()
		res, err := fn(sobek.Undefined())
		if err != nil {
			rethrow(rt, err)
		}
		s.Samples.AddSamples([]metrics.Sample{{
			Metric: s.Registry.Builtin.GroupDuration, Time: time.Now(),
			Value: float64(time.Since(start)) / float64(time.Millisecond), Tags: s.Tags,
		}})
		return res
	})

	_ = obj.Set("sleep", func(call sobek.FunctionCall) sobek.Value {
		secs := call.Argument(0).ToFloat()
		if !(secs > 0) {
			return sobek.Undefined()
		}
		ctx := s.Ctx
		if ctx == nil {
			ctx = context.Background()
		}
		t := time.NewTimer(time.Duration(secs * float64(time.Second)))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			// The iteration is being stopped (gracefulStop, the test's end): nothing after the sleep may run. The
			// VU's own watcher interrupts the runtime too, but from another goroutine, possibly a moment too late.
			rt.Interrupt(ctx.Err())
		}
		return sobek.Undefined()
	})

	_ = obj.Set("fail", func(call sobek.FunctionCall) sobek.Value {
		msg := ""
		if a := call.Argument(0); !sobek.IsUndefined(a) {
			msg = a.String()
		}
		throwError(rt, msg)
		return nil
	})

	_ = obj.Set("randomSeed", func(call sobek.FunctionCall) sobek.Value {
		rt.SetRandSource(rand.New(rand.NewSource(call.Argument(0).ToInteger())).Float64)
		return sobek.Undefined()
	})
	return obj, nil
}

// isAsync tells an async function from a plain one by its constructor's name.
func isAsync(fn sobek.Value) bool {
	obj, ok := fn.(*sobek.Object)
	if !ok {
		return false
	}
	ctor, ok := obj.Get("constructor").(*sobek.Object)
	if !ok {
		return false
	}
	name := ctor.Get("name")
	return name != nil && name.String() == "AsyncFunction"
}
