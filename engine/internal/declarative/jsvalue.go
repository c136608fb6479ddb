package declarative

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// appendJSNumber writes a number as JavaScript's Number::toString does ("" + n in the script).
func appendJSNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		return append(b, '0')
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// The shortest digits that round-trip, and the decimal exponent: f = 0.DIGITS x 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n, k := x+1, len(digits)
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, "0."...)
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

// jsString is what "" + v gives in JavaScript for a JSON value: strings as they
// are, numbers as Number::toString, arrays joined by commas (null elements
// empty), objects "[object Object]".
func jsString(r gjson.Result) string {
	switch r.Type {
	case gjson.String:
		return r.Str
	case gjson.Number:
		return string(appendJSNumber(nil, r.Num))
	case gjson.True:
		return "true"
	case gjson.False:
		return "false"
	case gjson.Null:
		return "null"
	}
	if r.IsArray() {
		var b strings.Builder
		for i, el := range r.Array() {
			if i > 0 {
				b.WriteByte(',')
			}
			if el.Type != gjson.Null {
				b.WriteString(jsString(el))
			}
		}
		return b.String()
	}
	return "[object Object]"
}

// jsStringOfJSON is jsString of a JSON text.
func jsStringOfJSON(raw []byte) (string, error) {
	if !gjson.ValidBytes(raw) {
		return "", fmt.Errorf("invalid JSON value %s", raw)
	}
	return jsString(gjson.ParseBytes(raw)), nil
}
