package modules

import (
	"encoding/base64"

	"github.com/grafana/sobek"
)

func init() {
	Register("k6/encoding", newEncoding)
}

func newEncoding(s *VUState) (*sobek.Object, error) {
	rt := s.Runtime
	obj := rt.NewObject()
	_ = obj.Set("b64encode", func(call sobek.FunctionCall) sobek.Value {
		data := bytesOf(rt, call.Argument(0))
		return rt.ToValue(b64Encoding(rt, call.Argument(1)).EncodeToString(data))
	})
	_ = obj.Set("b64decode", func(call sobek.FunctionCall) sobek.Value {
		out, err := b64Encoding(rt, call.Argument(1)).DecodeString(call.Argument(0).String())
		if err != nil {
			throwError(rt, "b64decode: "+err.Error())
		}
		if f := call.Argument(2); !sobek.IsUndefined(f) && f.String() == "s" {
			return rt.ToValue(string(out))
		}
		return rt.ToValue(rt.NewArrayBuffer(out))
	})
	return obj, nil
}

// b64Encoding is k6/encoding's encoding argument: "std" (default), "rawstd", "url" or "rawurl".
func b64Encoding(rt *sobek.Runtime, v sobek.Value) *base64.Encoding {
	if sobek.IsUndefined(v) || sobek.IsNull(v) {
		return base64.StdEncoding
	}
	switch v.String() {
	case "", "std":
		return base64.StdEncoding
	case "rawstd":
		return base64.RawStdEncoding
	case "url":
		return base64.URLEncoding
	case "rawurl":
		return base64.RawURLEncoding
	}
	panic(rt.NewTypeError(`unknown base64 encoding "` + v.String() + `" (use "std", "rawstd", "url" or "rawurl")`))
}

// bytesOf reads a string (as UTF-8), an ArrayBuffer, a typed array or a DataView as bytes.
func bytesOf(rt *sobek.Runtime, v sobek.Value) []byte {
	if obj, ok := v.(*sobek.Object); ok {
		switch x := obj.Export().(type) {
		case sobek.ArrayBuffer:
			return x.Bytes()
		case []byte:
			return x
		}
		if bv := obj.Get("buffer"); bv == nil {
			// not a view
		} else if buf, ok := bv.Export().(sobek.ArrayBuffer); ok {
			// Other typed arrays and DataViews: their window on the buffer.
			off := obj.Get("byteOffset").ToInteger()
			n := obj.Get("byteLength").ToInteger()
			b := buf.Bytes()
			if off >= 0 && n >= 0 && off+n <= int64(len(b)) {
				return b[off : off+n]
			}
		}
	}
	return []byte(v.String())
}
