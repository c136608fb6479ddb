// Package declarative runs opsbench's generated workloads natively: the JSON
// that compileDeclarativeWorkload (packages/core/src/workloads/compile-declarative.ts)
// writes, a sequence or weighted mix of named requests with pre-parsed
// templates, data pools, setup requests with captures, think time and
// connection handling. No JavaScript runs: every VU sends its requests through
// netclient with the semantics of the k6 script opsbench generates for the same
// workload (compile-program.ts and runtime.ts are the specification).
package declarative

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/opsbench/opsbench/engine/internal/netclient"
)

// Format is the value of the "opsbench" key, the first of every declarative workload file.
const Format = "declarative/1"

// formatPrefix is how a declarative workload file starts (compileDeclarativeWorkload writes it so).
var formatPrefix = []byte(`{"opsbench":"` + Format + `"`)

// Sniff tells whether a file's first bytes are those of a declarative workload.
func Sniff(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	return bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), formatPrefix)
}

// LoadError is a workload file that cannot be run; Field names where (e.g. "program.requests[1].path[0].pool").
type LoadError struct {
	Field string
	Msg   string
}

func (e *LoadError) Error() string {
	if e.Field == "" {
		return "declarative workload: " + e.Msg
	}
	return "declarative workload: " + e.Field + ": " + e.Msg
}

func loadErr(field, format string, a ...any) error {
	return &LoadError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// The file's JSON, as compile-declarative.ts writes it.
type fileJSON struct {
	Opsbench string          `json:"opsbench"`
	Options  json.RawMessage `json:"options"`
	Program  *programJSON    `json:"program"`
}

type programJSON struct {
	Requests          []requestJSON       `json:"requests"`
	Mix               string              `json:"mix"`
	Pools             map[string]poolJSON `json:"pools"`
	Setup             []requestJSON       `json:"setup"`
	ThinkTime         json.RawMessage     `json:"thinkTime"`
	RequestTimeout    *float64            `json:"requestTimeout"`
	NoConnectionReuse bool                `json:"noConnectionReuse"`
	ReconnectEvery    int64               `json:"reconnectEvery"`
}

// requestJSON is a load request (weight) or a setup step (forEach, capture).
type requestJSON struct {
	Name         string        `json:"name"`
	Tag          string        `json:"tag"`
	Method       string        `json:"method"`
	Path         []partJSON    `json:"path"`
	Body         *[]partJSON   `json:"body"`
	Headers      []headerJSON  `json:"headers"`
	ExpectStatus []int         `json:"expectStatus"`
	Weight       *float64      `json:"weight"`
	ForEach      *string       `json:"forEach"`
	Capture      []captureJSON `json:"capture"`
}

type headerJSON struct {
	Name  string     `json:"name"`
	Value []partJSON `json:"value"`
}

type captureJSON struct {
	Name     string `json:"name"`
	Selector string `json:"selector"`
}

// partJSON is template.ts's TemplatePart.
type partJSON struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Pool   string `json:"pool"`
	Field  string `json:"field"`
	Name   string `json:"name"`
	Min    int64  `json:"min"`
	Max    int64  `json:"max"`
	Length int64  `json:"length"`
	Bytes  int64  `json:"bytes"`
}

type poolJSON struct {
	Choice     json.RawMessage              `json:"choice"`
	Dimensions []dimensionJSON              `json:"dimensions"`
	Rows       []map[string]json.RawMessage `json:"rows"`
}

type dimensionJSON struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// maxPoolRows bounds a pool (opsbench allows 1,000,000; this only guards the arithmetic).
const maxPoolRows = 1 << 31

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// DefaultBaseURL is the target's address when OPSBENCH_BASE_URL is not set (as in the generated script).
const DefaultBaseURL = "http://127.0.0.1:8080"

func decodeFile(data []byte) (*fileJSON, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f fileJSON
	if err := dec.Decode(&f); err != nil {
		return nil, &LoadError{Msg: "invalid JSON: " + err.Error()}
	}
	if dec.More() {
		return nil, &LoadError{Msg: "invalid JSON: text after the workload object"}
	}
	if f.Opsbench != Format {
		return nil, loadErr("opsbench", "expected %q, got %q", Format, f.Opsbench)
	}
	if t := bytes.TrimSpace(f.Options); len(t) == 0 || t[0] != '{' {
		return nil, loadErr("options", "must be an object (the k6 options)")
	}
	if f.Program == nil {
		return nil, loadErr("program", "missing")
	}
	return &f, nil
}

// compile turns the program's JSON into what the VUs run, checking everything a
// hand-written or corrupted file could get wrong; baseURL has no trailing slash.
func compile(p *programJSON, baseURL string) (*program, error) {
	prog := &program{poolIndex: map[string]int{}, setupVarIndex: map[string]int{}, baseURL: baseURL}

	names := make([]string, 0, len(p.Pools))
	for n := range p.Pools {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		pl, err := compilePool(n, p.Pools[n], "program.pools."+n)
		if err != nil {
			return nil, err
		}
		prog.poolIndex[n] = len(prog.pools)
		prog.pools = append(prog.pools, pl)
	}

	// Setup steps see only what earlier steps captured, as the generated script's templates do.
	for i := range p.Setup {
		s := &p.Setup[i]
		at := fmt.Sprintf("program.setup[%d]", i)
		if s.Weight != nil {
			return nil, loadErr(at+".weight", "setup requests have no weight")
		}
		step := &setupStep{forEach: -1}
		if s.ForEach != nil {
			pi, ok := prog.poolIndex[*s.ForEach]
			if !ok {
				return nil, loadErr(at+".forEach", "unknown pool %q%s", *s.ForEach, knownPools(prog))
			}
			step.forEach = pi
		}
		r, err := prog.compileRequest(s, at)
		if err != nil {
			return nil, err
		}
		step.request = r
		for j, c := range s.Capture {
			cat := fmt.Sprintf("%s.capture[%d]", at, j)
			if !identifier.MatchString(c.Name) {
				return nil, loadErr(cat+".name", "%q is not a name of letters, digits and '_'", c.Name)
			}
			if c.Selector == "" {
				return nil, loadErr(cat+".selector", "empty")
			}
			cp := capture{name: c.Name, selector: c.Selector}
			if step.forEach >= 0 {
				cp.index = prog.pools[step.forEach].addCapture(c.Name)
			} else {
				cp.index = prog.addSetupVar(c.Name)
			}
			step.captures = append(step.captures, cp)
		}
		prog.setup = append(prog.setup, step)
	}

	if len(p.Requests) == 0 {
		return nil, loadErr("program.requests", "at least one request is needed")
	}
	switch p.Mix {
	case "sequence", "":
	case "weighted":
		prog.weighted = true
	default:
		return nil, loadErr("program.mix", `expected "sequence" or "weighted", got %q`, p.Mix)
	}
	weights := make([]float64, 0, len(p.Requests))
	for i := range p.Requests {
		q := &p.Requests[i]
		at := fmt.Sprintf("program.requests[%d]", i)
		if q.ForEach != nil || q.Capture != nil {
			return nil, loadErr(at, "forEach and capture are for setup requests")
		}
		w := 1.0
		if q.Weight != nil {
			w = *q.Weight
			if !(w > 0) || math.IsInf(w, 0) {
				return nil, loadErr(at+".weight", "must be a positive number, got %v", w)
			}
		}
		weights = append(weights, w)
		r, err := prog.compileRequest(q, at)
		if err != nil {
			return nil, err
		}
		prog.requests = append(prog.requests, r)
	}
	prog.pick = newWeighted(weights)

	if err := prog.compileThinkTime(p.ThinkTime); err != nil {
		return nil, err
	}
	prog.timeout = netclient.DefaultTimeout
	if p.RequestTimeout != nil {
		t := *p.RequestTimeout
		if !(t > 0) || t > 1e9 {
			return nil, loadErr("program.requestTimeout", "must be a positive number of seconds, got %v", t)
		}
		prog.timeout = time.Duration(t * float64(time.Second))
	}
	for _, r := range prog.allRequests() {
		r.timeout = prog.timeout
	}
	prog.noConnectionReuse = p.NoConnectionReuse
	if p.ReconnectEvery < 0 {
		return nil, loadErr("program.reconnectEvery", "must be 0 (never) or a positive count, got %d", p.ReconnectEvery)
	}
	prog.reconnectEvery = p.ReconnectEvery
	return prog, nil
}

func knownPools(prog *program) string {
	if len(prog.pools) == 0 {
		return " (no pools are defined)"
	}
	names := make([]string, len(prog.pools))
	for i, p := range prog.pools {
		names[i] = p.name
	}
	return " (pools: " + strings.Join(names, ", ") + ")"
}

func (prog *program) addSetupVar(name string) int {
	if i, ok := prog.setupVarIndex[name]; ok {
		return i
	}
	prog.setupVarIndex[name] = len(prog.setupVars)
	prog.setupVars = append(prog.setupVars, name)
	return len(prog.setupVars) - 1
}

func (prog *program) compileThinkTime(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var fixed float64
	if err := json.Unmarshal(raw, &fixed); err == nil {
		if !(fixed >= 0) || fixed > 1e9 {
			return loadErr("program.thinkTime", "must be a non-negative number of seconds, got %v", fixed)
		}
		prog.thinkMin, prog.thinkMax = fixed, fixed
		return nil
	}
	var mm struct {
		Min *float64 `json:"min"`
		Max *float64 `json:"max"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mm); err != nil || mm.Min == nil || mm.Max == nil {
		return loadErr("program.thinkTime", "expected seconds or {\"min\": seconds, \"max\": seconds}, got %s", raw)
	}
	if !(*mm.Min >= 0) || !(*mm.Max >= *mm.Min) || *mm.Max > 1e9 {
		return loadErr("program.thinkTime", "needs 0 <= min <= max, got min %v, max %v", *mm.Min, *mm.Max)
	}
	prog.thinkMin, prog.thinkMax = *mm.Min, *mm.Max
	return nil
}

func (prog *program) compileRequest(q *requestJSON, at string) (*request, error) {
	if q.Name == "" {
		return nil, loadErr(at+".name", "empty")
	}
	r := &request{name: q.Name, tag: q.Tag, method: q.Method}
	if r.tag == "" {
		r.tag = q.Name
	}
	if !slices.Contains(methods, q.Method) {
		return nil, loadErr(at+".method", "expected one of %s, got %q", strings.Join(methods, ", "), q.Method)
	}
	var err error
	if r.path, err = prog.compileTemplate(q.Path, at+".path"); err != nil {
		return nil, err
	}
	if len(r.path.parts) == 0 || r.path.parts[0].kind != partText || !strings.HasPrefix(r.path.parts[0].text, "/") {
		return nil, loadErr(at+".path", "must start with \"/\"")
	}
	if r.path.constant {
		r.urlText = prog.baseURL + r.path.text
		if u, err := url.Parse(r.urlText); err == nil {
			r.url = u
		}
	}
	if q.Body != nil {
		if r.body, err = prog.compileTemplate(*q.Body, at+".body"); err != nil {
			return nil, err
		}
		if r.body.constant {
			r.bodyBytes = []byte(r.body.text)
		}
	}
	r.header = http.Header{}
	for i, h := range q.Headers {
		hat := fmt.Sprintf("%s.headers[%d]", at, i)
		if h.Name == "" || strings.ContainsAny(h.Name, " \t\r\n:") {
			return nil, loadErr(hat+".name", "%q is not a header name", h.Name)
		}
		t, err := prog.compileTemplate(h.Value, hat+".value")
		if err != nil {
			return nil, err
		}
		key := http.CanonicalHeaderKey(h.Name)
		// As k6 sets params.headers one by one, a later spelling of the same header wins.
		r.headers = slices.DeleteFunc(r.headers, func(x header) bool { return x.key == key })
		r.headers = append(r.headers, header{key: key, value: t})
	}
	for _, h := range r.headers {
		if h.value.constant {
			r.header[h.key] = []string{h.value.text}
		} else {
			r.dynamicHeaders = true
		}
	}
	r.headerClose = r.header.Clone()
	r.headerClose["Connection"] = []string{"close"}
	if q.ExpectStatus != nil {
		if len(q.ExpectStatus) == 0 {
			return nil, loadErr(at+".expectStatus", "empty (use null for k6's default 200-399)")
		}
		ranges := make([][2]int, len(q.ExpectStatus))
		names := make([]string, len(q.ExpectStatus))
		for i, s := range q.ExpectStatus {
			if s < 100 || s > 599 {
				return nil, loadErr(fmt.Sprintf("%s.expectStatus[%d]", at, i), "%d is not an HTTP status", s)
			}
			ranges[i] = [2]int{s, s}
			names[i] = strconv.Itoa(s)
		}
		r.expect = slices.Clone(q.ExpectStatus)
		r.expected = netclient.NewExpectedStatuses(ranges...)
		r.checkName = q.Name + " status " + strings.Join(names, "|")
	} else {
		r.expected = netclient.DefaultExpectedStatuses
	}
	return r, nil
}

func (prog *program) compileTemplate(parts []partJSON, at string) (*template, error) {
	t := &template{}
	for i, pj := range parts {
		pat := fmt.Sprintf("%s[%d]", at, i)
		p := part{kind: partText}
		switch pj.Type {
		case "text":
			p.text = pj.Text
		case "pool":
			pi, ok := prog.poolIndex[pj.Pool]
			if !ok {
				return nil, loadErr(pat+".pool", "unknown pool %q%s", pj.Pool, knownPools(prog))
			}
			pl := prog.pools[pi]
			p.kind, p.pool = partPool, pi
			p.base, p.capture = pl.baseField(pj.Field), pl.captureField(pj.Field)
			if p.base < 0 && p.capture < 0 {
				return nil, loadErr(pat+".field", "pool %q has no field %q (fields: %s)", pj.Pool, pj.Field, strings.Join(pl.fieldNames(), ", "))
			}
		case "setup":
			vi, ok := prog.setupVarIndex[pj.Name]
			if !ok {
				return nil, loadErr(pat+".name", "no setup request captures %q before this point", pj.Name)
			}
			p.kind, p.index = partSetup, vi
		case "env":
			if pj.Name == "" {
				return nil, loadErr(pat+".name", "empty")
			}
			p.kind, p.text = partEnv, pj.Name
		case "randomInt":
			if pj.Min > pj.Max {
				return nil, loadErr(pat, "min %d exceeds max %d", pj.Min, pj.Max)
			}
			p.kind, p.a, p.b = partRandomInt, pj.Min, pj.Max
		case "randomString":
			if pj.Length < 1 || pj.Length > 100_000 {
				return nil, loadErr(pat+".length", "must be 1..100000, got %d", pj.Length)
			}
			p.kind, p.a = partRandomString, pj.Length
		case "payload":
			if pj.Bytes < 0 || pj.Bytes > 10_000_000 {
				return nil, loadErr(pat+".bytes", "must be 0..10000000, got %d", pj.Bytes)
			}
			// A payload never changes: it is text, made once.
			p.text = strings.Repeat("x", int(pj.Bytes))
		case "uuid":
			p.kind = partUUID
		case "vu":
			p.kind = partVU
		case "iteration":
			p.kind = partIteration
		case "timestamp":
			p.kind = partTimestamp
		default:
			return nil, loadErr(pat+".type", "unknown template part %q", pj.Type)
		}
		// Adjacent text (payloads included) is merged, so a constant template is one string.
		if p.kind == partText && len(t.parts) > 0 && t.parts[len(t.parts)-1].kind == partText {
			t.parts[len(t.parts)-1].text += p.text
			continue
		}
		t.parts = append(t.parts, p)
	}
	for _, p := range t.parts {
		t.size += len(p.text) + 40 // room for a value, a uuid's 36 characters
	}
	t.constant = len(t.parts) == 0 || (len(t.parts) == 1 && t.parts[0].kind == partText)
	if len(t.parts) == 1 && t.parts[0].kind == partText {
		t.text = t.parts[0].text
	}
	return t, nil
}

func compilePool(name string, pj poolJSON, at string) (*pool, error) {
	if !identifier.MatchString(name) {
		return nil, loadErr(at, "a pool name is letters, digits and '_'")
	}
	p := &pool{name: name}
	if err := p.parseChoice(pj.Choice, at+".choice"); err != nil {
		return nil, err
	}
	switch {
	case pj.Dimensions != nil && pj.Rows != nil:
		return nil, loadErr(at, "has both dimensions and rows")
	case pj.Dimensions != nil:
		if len(pj.Dimensions) == 0 {
			return nil, loadErr(at+".dimensions", "name at least one dimension")
		}
		size := int64(1)
		for i, d := range pj.Dimensions {
			dat := fmt.Sprintf("%s.dimensions[%d]", at, i)
			if !identifier.MatchString(d.Name) {
				return nil, loadErr(dat+".name", "%q is not a name of letters, digits and '_'", d.Name)
			}
			if d.Size < 1 {
				return nil, loadErr(dat+".size", "must be at least 1, got %d", d.Size)
			}
			size *= d.Size
			if size > maxPoolRows {
				return nil, loadErr(at+".dimensions", "too many rows")
			}
		}
		p.dims = make([]dimension, len(pj.Dimensions))
		stride := int64(1)
		for i := len(pj.Dimensions) - 1; i >= 0; i-- {
			p.dims[i] = dimension{name: pj.Dimensions[i].Name, size: pj.Dimensions[i].Size, stride: stride}
			stride *= pj.Dimensions[i].Size
		}
		p.size = int(size)
		for _, d := range p.dims {
			p.fields = append(p.fields, d.name)
		}
		// obDimensionRow starts with { index: i }; a dimension called "index" overwrites it.
		p.indexField = -1
		if !slices.Contains(p.fields, "index") {
			p.indexField = len(p.fields)
			p.fields = append(p.fields, "index")
		}
	case pj.Rows != nil:
		if len(pj.Rows) == 0 {
			return nil, loadErr(at+".rows", "at least one row is needed")
		}
		seen := map[string]int{}
		for _, row := range pj.Rows {
			keys := make([]string, 0, len(row))
			for k := range row {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if _, ok := seen[k]; !ok {
					seen[k] = len(p.fields)
					p.fields = append(p.fields, k)
				}
			}
		}
		p.rows = make([][]string, len(pj.Rows))
		for i, row := range pj.Rows {
			vals := make([]string, len(p.fields))
			for f := range vals {
				vals[f] = "undefined" // what "" + a missing field gives in the script
			}
			for k, v := range row {
				s, err := jsStringOfJSON(v)
				if err != nil {
					return nil, loadErr(fmt.Sprintf("%s.rows[%d].%s", at, i, k), "%v", err)
				}
				vals[seen[k]] = s
			}
			p.rows[i] = vals
		}
		p.size = len(pj.Rows)
	default:
		return nil, loadErr(at, "needs dimensions or rows")
	}
	return p, nil
}
