package modules

import (
	"fmt"
	"sync"

	"github.com/grafana/sobek"
)

func init() {
	Register("k6/data", newData)
}

// Shared holds what all VUs of one test share.
type Shared struct {
	mu     sync.Mutex
	arrays map[string]*sharedArray
}

// sharedArray keeps its elements as JSON, as k6 documents: each read gives the VU
// a fresh copy, and no VU can change what another sees.
type sharedArray struct {
	once  sync.Once
	elems []string
	err   error
}

func (sh *Shared) array(name string) *sharedArray {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.arrays == nil {
		sh.arrays = map[string]*sharedArray{}
	}
	a := sh.arrays[name]
	if a == nil {
		a = &sharedArray{}
		sh.arrays[name] = a
	}
	return a
}

func newData(s *VUState) (*sobek.Object, error) {
	rt := s.Runtime
	obj := rt.NewObject()
	_ = obj.Set("SharedArray", func(call sobek.ConstructorCall) *sobek.Object {
		if !s.Init {
			throwError(rt, "new SharedArray must be called in the init context")
		}
		name := call.Argument(0)
		if sobek.IsUndefined(name) || name.String() == "" {
			throwError(rt, "new SharedArray needs a name as its first argument")
		}
		fn, ok := sobek.AssertFunction(call.Argument(1))
		if !ok {
			throwError(rt, "new SharedArray needs a function that returns an array as its second argument")
		}
		shared := s.Shared
		if shared == nil {
			shared = &Shared{}
			s.Shared = shared
		}
		a := shared.array(name.String())
		// The first VU to get here runs fn; the others wait for it and share its result.
		var failed error
		a.once.Do(func() {
			a.elems, failed = buildSharedArray(rt, name.String(), fn)
			if failed != nil {
				// Other VUs get the message only: the exception belongs to this VU's runtime.
				a.err = fmt.Errorf("SharedArray %q could not be made: %s", name.String(), failed.Error())
			}
		})
		if failed != nil {
			rethrow(rt, failed)
		}
		if a.err != nil {
			panic(rt.NewGoError(a.err))
		}
		parse, _ := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
		return rt.NewDynamicArray(&sharedArrayView{rt: rt, a: a, parse: parse})
	})
	return obj, nil
}

func buildSharedArray(rt *sobek.Runtime, name string, fn sobek.Callable) (elems []string, err error) {
	res, err := fn(sobek.Undefined())
	if err != nil {
		return nil, err
	}
	obj, ok := res.(*sobek.Object)
	if !ok || obj.ClassName() != "Array" {
		return nil, fmt.Errorf("the function of SharedArray %q must return an array", name)
	}
	stringify, _ := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
	n := int(obj.Get("length").ToInteger())
	elems = make([]string, n)
	for i := range n {
		v, err := stringify(sobek.Undefined(), obj.Get(fmt.Sprint(i)))
		if err != nil {
			return nil, err
		}
		if sobek.IsUndefined(v) { // undefined and functions have no JSON; k6 gives them as null
			elems[i] = "null"
		} else {
			elems[i] = v.String()
		}
	}
	return elems, nil
}

// sharedArrayView is one VU's read-only view of a SharedArray.
type sharedArrayView struct {
	rt    *sobek.Runtime
	a     *sharedArray
	parse sobek.Callable
}

func (v *sharedArrayView) Len() int { return len(v.a.elems) }

func (v *sharedArrayView) Get(i int) sobek.Value {
	if i < 0 || i >= len(v.a.elems) {
		return sobek.Undefined()
	}
	val, err := v.parse(sobek.Undefined(), v.rt.ToValue(v.a.elems[i]))
	if err != nil {
		rethrow(v.rt, err)
	}
	return val
}

func (v *sharedArrayView) Set(int, sobek.Value) bool {
	panic(v.rt.NewTypeError("SharedArray is read-only"))
}

func (v *sharedArrayView) SetLen(int) bool {
	panic(v.rt.NewTypeError("SharedArray is read-only"))
}
