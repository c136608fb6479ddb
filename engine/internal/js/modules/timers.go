package modules

import (
	"time"

	"github.com/grafana/sobek"
)

func init() {
	Register("k6/timers", func(s *VUState) (*sobek.Object, error) {
		obj := s.Runtime.NewObject()
		SetTimers(s, obj)
		return obj, nil
	})
}

// SetTimers puts setTimeout, clearTimeout, setInterval and clearInterval on obj
// (k6 has them as globals and in k6/timers).
func SetTimers(s *VUState, obj *sobek.Object) {
	rt := s.Runtime
	set := func(repeat bool) func(sobek.FunctionCall) sobek.Value {
		return func(call sobek.FunctionCall) sobek.Value {
			fn, ok := sobek.AssertFunction(call.Argument(0))
			if !ok {
				panic(rt.NewTypeError("the first argument of setTimeout/setInterval must be a function"))
			}
			ms := call.Argument(1).ToFloat()
			if !(ms > 0) { // also NaN
				ms = 0
			}
			var args []sobek.Value
			if len(call.Arguments) > 2 {
				args = append(args, call.Arguments[2:]...)
			}
			return rt.ToValue(s.Loop.add(fn, time.Duration(ms*float64(time.Millisecond)), repeat, args))
		}
	}
	clear := func(call sobek.FunctionCall) sobek.Value {
		s.Loop.remove(call.Argument(0).ToInteger())
		return sobek.Undefined()
	}
	_ = obj.Set("setTimeout", set(false))
	_ = obj.Set("setInterval", set(true))
	_ = obj.Set("clearTimeout", clear)
	_ = obj.Set("clearInterval", clear)
}
