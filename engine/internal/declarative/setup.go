package declarative

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/netclient"
)

// SetupError is a setup request that failed (its status, or what it should
// have captured); the test does not start. As the generated script's fail(), it
// is a script error (exit code 107).
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }

// Setup sends the setup requests once, in order, on a VU of its own (group
// "::setup", __VU 0): each must succeed (expectStatus, default 200-399) and
// what it captures is handed to every VU. The result is the script's setup()
// data: {"vars": {NAME: value}, "rows": {POOL: [{NAME: value}, ...]}}, or null
// when there are no setup requests.
func (r *Runner) Setup(ctx context.Context) (json.RawMessage, error) {
	prog := r.prog
	if len(prog.setup) == 0 {
		return json.RawMessage("null"), nil
	}
	shared, opts, err := r.http()
	if err != nil {
		return nil, err
	}
	client := netclient.NewClient(shared)
	defer client.Close()
	emitter := netclient.NewEmitter(r.reg, opts)

	reqs := make([]*request, len(prog.setup))
	for i, s := range prog.setup {
		reqs[i] = s.request
	}
	r.mu.Lock()
	testTags := r.testTags
	r.mu.Unlock()
	tags := newRequestTags(testTags.With(map[string]string{"group": "::setup"}), reqs)

	v := &VU{r: r, prog: prog, client: client, emitter: emitter, buf: make([]byte, 0, 256)}
	c := newIctx(prog, rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
	c.env = r.env
	// Sequential choice in setup has no iteration to go by: the script counts its own picks from 0.
	picks := int64(-1)
	c.counter = func() int64 { picks++; return picks }
	out := newSetupOutput(prog)
	c.data = out.data

	for si, step := range prog.setup {
		vr := newVURequest(step.request)
		name := jsonString(step.request.name)
		if step.forEach < 0 {
			c.reset()
			if err := v.setupSend(ctx, step, &vr, c, name, tags.base, tags.checks[si], out, -1); err != nil {
				return nil, err
			}
			continue
		}
		pl := prog.pools[step.forEach]
		out.touchPool(step.forEach)
		for i := range pl.size {
			c.reset()
			c.fixedPool, c.fixedRow = step.forEach, i
			label := name + " (" + pl.name + " row " + strconv.Itoa(i) + ")"
			err := v.setupSend(ctx, step, &vr, c, label, tags.base, tags.checks[si], out, i)
			c.fixedPool = -1
			if err != nil {
				return nil, err
			}
		}
	}
	return out.json(), nil
}

// setupSend is the script's obSetupSend: send, require success, capture.
func (v *VU) setupSend(ctx context.Context, step *setupStep, vr *vuRequest, c *ictx, label string,
	tags, checkTags *metrics.TagSet, out *setupOutput, row int) error {
	resp := v.send(ctx, step.request, vr, c, false, tags, checkTags)
	if resp.Aborted || ctx.Err() != nil {
		return &SetupError{Msg: fmt.Sprintf("setup request %s was interrupted: %v", label, context.Cause(ctx))}
	}
	q := step.request
	ok := resp.Status >= 200 && resp.Status < 400
	if q.expect != nil {
		ok = false
		for _, s := range q.expect {
			ok = ok || s == resp.Status
		}
	}
	if !ok {
		msg := "setup request " + label + " failed: status " + strconv.Itoa(resp.Status)
		if resp.Error != "" {
			msg += " (" + resp.Error + ")"
		}
		return &SetupError{Msg: msg}
	}
	for _, cp := range step.captures {
		if !gjson.ValidBytes(resp.Body) {
			return &SetupError{Msg: "setup request " + label + ": the response is not JSON, cannot capture " + cp.name}
		}
		res := gjson.GetBytes(resp.Body, cp.selector)
		if !res.Exists() || res.Type == gjson.Null {
			return &SetupError{Msg: "setup request " + label + ": the response has nothing at " + jsonString(cp.selector) + " to capture as " + cp.name}
		}
		out.set(step, cp, row, res)
	}
	return nil
}

// setupOutput builds setup's data as it goes: the parsed form the next setup
// requests read, and the JSON handed to the VUs.
type setupOutput struct {
	prog *program
	data *setupData
	// vars and rows hold the captured values' JSON (nil: not captured).
	vars [][]byte
	rows [][][][]byte // [pool][row][capture field]
	// pools lists the pools forEach steps went over, in order.
	pools []int
}

func newSetupOutput(prog *program) *setupOutput {
	o := &setupOutput{prog: prog, data: &setupData{vars: make([]capCell, len(prog.setupVars)), rows: make([][][]capCell, len(prog.pools))},
		vars: make([][]byte, len(prog.setupVars)), rows: make([][][][]byte, len(prog.pools))}
	return o
}

func (o *setupOutput) touchPool(pi int) {
	if o.rows[pi] != nil {
		return
	}
	o.pools = append(o.pools, pi)
	pl := o.prog.pools[pi]
	o.rows[pi] = make([][][]byte, pl.size)
	o.data.rows[pi] = make([][]capCell, pl.size)
}

func (o *setupOutput) set(step *setupStep, cp capture, row int, res gjson.Result) {
	cell := capCell{v: jsString(res), ok: true}
	raw := []byte(res.Raw)
	if step.forEach < 0 {
		o.vars[cp.index], o.data.vars[cp.index] = raw, cell
		return
	}
	pi := step.forEach
	n := len(o.prog.pools[pi].captures)
	if o.rows[pi][row] == nil {
		o.rows[pi][row] = make([][]byte, n)
		o.data.rows[pi][row] = make([]capCell, n)
	}
	o.rows[pi][row][cp.index], o.data.rows[pi][row][cp.index] = raw, cell
}

func (o *setupOutput) json() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"vars":{`)
	first := true
	for i, raw := range o.vars {
		if raw == nil {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(jsonString(o.prog.setupVars[i]))
		b.WriteByte(':')
		b.Write(raw)
	}
	b.WriteString(`},"rows":{`)
	for n, pi := range o.pools {
		if n > 0 {
			b.WriteByte(',')
		}
		pl := o.prog.pools[pi]
		b.WriteString(jsonString(pl.name))
		b.WriteString(":[")
		for ri, row := range o.rows[pi] {
			if ri > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('{')
			first := true
			for ci, raw := range row {
				if raw == nil {
					continue
				}
				if !first {
					b.WriteByte(',')
				}
				first = false
				b.WriteString(jsonString(pl.captures[ci]))
				b.WriteByte(':')
				b.Write(raw)
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	b.WriteString("}}")
	return b.Bytes()
}

// jsonString is JSON.stringify of a string (no HTML escaping, unlike json.Marshal).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// setupData returns the parsed form of setup's JSON, parsed once for all VUs.
func (r *Runner) setupData(raw json.RawMessage) *setupData {
	var first *byte
	if len(raw) > 0 {
		first = &raw[0]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// Every activation gets the same slice: comparing its address spares comparing megabytes of captures.
	if r.lastData != nil && ((first == r.lastDataFirst && len(raw) == len(r.lastDataRaw)) || string(raw) == r.lastDataRaw) {
		return r.lastData
	}
	d := parseSetupData(r.prog, raw)
	r.lastDataRaw, r.lastDataFirst, r.lastData = string(raw), first, d
	return d
}

// parseSetupData reads setup's JSON; what it does not know (or "null") is left out.
func parseSetupData(prog *program, raw json.RawMessage) *setupData {
	d := &setupData{vars: make([]capCell, len(prog.setupVars)), rows: make([][][]capCell, len(prog.pools))}
	if !gjson.ValidBytes(raw) {
		return d
	}
	root := gjson.ParseBytes(raw)
	root.Get("vars").ForEach(func(k, v gjson.Result) bool {
		if i, ok := prog.setupVarIndex[k.String()]; ok && v.Type != gjson.Null {
			d.vars[i] = capCell{v: jsString(v), ok: true}
		}
		return true
	})
	root.Get("rows").ForEach(func(k, rows gjson.Result) bool {
		pi, ok := prog.poolIndex[k.String()]
		if !ok || !rows.IsArray() {
			return true
		}
		pl := prog.pools[pi]
		list := rows.Array()
		d.rows[pi] = make([][]capCell, len(list))
		for ri, row := range list {
			row.ForEach(func(ck, cv gjson.Result) bool {
				if ci := pl.captureField(ck.String()); ci >= 0 && cv.Type != gjson.Null {
					if d.rows[pi][ri] == nil {
						d.rows[pi][ri] = make([]capCell, len(pl.captures))
					}
					d.rows[pi][ri][ci] = capCell{v: jsString(cv), ok: true}
				}
				return true
			})
		}
		return true
	})
	return d
}
