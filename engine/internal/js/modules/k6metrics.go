package modules

import (
	"math"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

func init() {
	Register("k6/metrics", newMetrics)
}

func newMetrics(s *VUState) (*sobek.Object, error) {
	rt := s.Runtime
	obj := rt.NewObject()
	for _, kind := range []struct {
		name     string
		typ      metrics.Type
		timeable bool // (name, isTime) for Trend and Gauge
	}{
		{"Counter", metrics.Counter, false},
		{"Gauge", metrics.Gauge, true},
		{"Rate", metrics.Rate, false},
		{"Trend", metrics.Trend, true},
	} {
		_ = obj.Set(kind.name, func(call sobek.ConstructorCall) *sobek.Object {
			if !s.Init {
				throwError(rt, "new "+kind.name+"() must be called in the init context (outside of exported functions)")
			}
			vt := metrics.Default
			if kind.timeable && call.Argument(1).ToBoolean() {
				vt = metrics.Time
			}
			m, err := s.Registry.Get(call.Argument(0).String(), kind.typ, vt)
			if err != nil {
				throwError(rt, err.Error())
			}
			return newCustomMetric(s, m, call.This)
		})
	}
	return obj, nil
}

func newCustomMetric(s *VUState, m *metrics.Metric, this *sobek.Object) *sobek.Object {
	rt := s.Runtime
	_ = this.Set("name", m.Name)
	_ = this.Set("add", func(call sobek.FunctionCall) sobek.Value {
		if s.Init {
			throwError(rt, "metric "+m.Name+": add() can't be used in the init context; call it from an exported function")
		}
		v := call.Argument(0)
		value := v.ToFloat()
		if m.Type == metrics.Rate {
			// A Rate counts the non-zero (truthy) values.
			if v.ToBoolean() && !(value == 0) {
				value = 1
			} else {
				value = 0
			}
		} else if math.IsNaN(value) {
			s.Logf("warning", "metric "+m.Name+": add() got "+v.String()+", which is not a number; the value is dropped")
			return rt.ToValue(false)
		}
		tags := s.Tags
		if extra, ok := call.Argument(1).(*sobek.Object); ok {
			keys := extra.Keys()
			if len(keys) > 0 {
				m := make(map[string]string, len(keys))
				for _, k := range keys {
					m[k] = extra.Get(k).String()
				}
				tags = tags.With(m)
			}
		}
		s.Emit(m, value, tags)
		return rt.ToValue(true)
	})
	return nil
}
