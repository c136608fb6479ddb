package js

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/js/modules"
)

// setGlobals sets what k6 scripts find without importing: __ENV, __VU, __ITER,
// open(), console, the timers and the global crypto's random functions.
func (v *jsVU) setGlobals() error {
	rt, st := v.rt, v.state
	global := rt.GlobalObject()
	for name, val := range map[string]any{
		"__ENV":   v.envObject(v.r.cfg.Env),
		"__VU":    st.IDInTest,
		"open":    v.open,
		"console": v.console(),
		"crypto":  v.webCrypto(),
	} {
		if err := rt.Set(name, val); err != nil {
			return err
		}
	}
	// __ITER is read through a getter so that iterations don't set a global.
	iter := rt.ToValue(func(sobek.FunctionCall) sobek.Value { return rt.ToValue(st.Counters.InScenario) })
	if err := global.DefineAccessorProperty("__ITER", iter, nil, sobek.FLAG_FALSE, sobek.FLAG_TRUE); err != nil {
		return err
	}
	modules.SetTimers(st, global)
	return nil
}

// open reads a file under the script's folder, in the init context only; "b" gives an ArrayBuffer.
func (v *jsVU) open(call sobek.FunctionCall) sobek.Value {
	rt := v.rt
	name := call.Argument(0).String()
	if !v.state.Init {
		panic(rt.NewGoError(fmt.Errorf("open(%q): open() can only be called in the init context (outside exported functions)", name)))
	}
	path, err := confine(v.r.root, v.r.realRoot, name, v.r.base)
	if err != nil {
		panic(rt.NewGoError(fmt.Errorf("open(%q): %w", name, err)))
	}
	data, err := v.r.files.read(path)
	if err != nil {
		panic(rt.NewGoError(fmt.Errorf("open(%q): %w", name, err)))
	}
	if mode := call.Argument(1); !sobek.IsUndefined(mode) && mode.String() == "b" {
		return rt.ToValue(rt.NewArrayBuffer(append([]byte(nil), data...)))
	}
	return rt.ToValue(string(data))
}

func (v *jsVU) console() *sobek.Object {
	obj := v.rt.NewObject()
	for method, level := range map[string]string{
		"log": "info", "info": "info", "warn": "warning", "error": "error", "debug": "debug",
	} {
		_ = obj.Set(method, func(call sobek.FunctionCall) sobek.Value {
			v.r.logLine(level, v.format(call.Arguments), "console")
			return sobek.Undefined()
		})
	}
	return obj
}

// format joins console arguments as k6 prints them: strings as they are, objects as JSON.
func (v *jsVU) format(args []sobek.Value) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.formatOne(a))
	}
	return b.String()
}

func (v *jsVU) formatOne(a sobek.Value) string {
	obj, ok := a.(*sobek.Object)
	if !ok {
		return a.String()
	}
	if _, isFn := sobek.AssertFunction(a); isFn || obj.ClassName() == "Error" {
		return a.String()
	}
	if s, err := v.stringify(sobek.Undefined(), a); err == nil && !sobek.IsUndefined(s) {
		return s.String()
	}
	return a.String()
}

// webCrypto is the global crypto's getRandomValues and randomUUID; crypto.subtle is refused.
func (v *jsVU) webCrypto() *sobek.Object {
	rt := v.rt
	obj := rt.NewObject()
	_ = obj.Set("getRandomValues", func(call sobek.FunctionCall) sobek.Value {
		arr := call.Argument(0)
		o, ok := arr.(*sobek.Object)
		if !ok {
			panic(rt.NewTypeError("crypto.getRandomValues() needs a typed array"))
		}
		buf, ok := o.Get("buffer").Export().(sobek.ArrayBuffer)
		if !ok {
			panic(rt.NewTypeError("crypto.getRandomValues() needs a typed array"))
		}
		off, n := o.Get("byteOffset").ToInteger(), o.Get("byteLength").ToInteger()
		if n > 65536 {
			panic(rt.NewGoError(fmt.Errorf("crypto.getRandomValues(): %d bytes is more than the 65536 allowed", n)))
		}
		_, _ = rand.Read(buf.Bytes()[off : off+n])
		return arr
	})
	_ = obj.Set("randomUUID", func(sobek.FunctionCall) sobek.Value {
		var u [16]byte
		_, _ = rand.Read(u[:])
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		return rt.ToValue(fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]))
	})
	refuse := rt.ToValue(func(sobek.FunctionCall) sobek.Value {
		panic(rt.NewGoError(&UnsupportedError{What: "crypto.subtle (WebCrypto)", Hint: "k6/crypto's hashes and HMAC are supported"}))
	})
	_ = obj.DefineAccessorProperty("subtle", refuse, nil, sobek.FLAG_FALSE, sobek.FLAG_TRUE)
	return obj
}
