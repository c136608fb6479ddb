package declarative

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// setupData is what setup captured, with every value already as the script's
// string concatenation writes it.
type setupData struct {
	vars []capCell
	// rows[pool][row][capture field]; a nil row has no captures.
	rows [][][]capCell
}

type capCell struct {
	v  string
	ok bool
}

// ictx is what templates read during one iteration or one setup request (the
// script's obContext): one row per pool, chosen on first use.
type ictx struct {
	prog    *program
	random  func() float64
	pickers []picker
	// counter numbers sequential key choice: the iteration in the test, or setup's own count.
	counter func() int64
	env     map[string]string
	data    *setupData
	rows    []int // chosen row per pool, -1: none yet
	// fixedPool's row is fixedRow (a forEach setup request), -1: none.
	fixedPool, fixedRow int
	vu, iter            int64
}

func newIctx(prog *program, rng *rand.Rand) *ictx {
	c := &ictx{prog: prog, random: rng.Float64, rows: make([]int, len(prog.pools)), fixedPool: -1}
	c.pickers = make([]picker, len(prog.pools))
	for i, p := range prog.pools {
		c.pickers[i] = newPicker(p)
	}
	c.reset()
	return c
}

// reset forgets the rows chosen, for the next iteration or request.
func (c *ictx) reset() {
	for i := range c.rows {
		c.rows[i] = -1
	}
}

func (c *ictx) row(pi int) int {
	if i := c.rows[pi]; i >= 0 {
		return i
	}
	var i int
	if pi == c.fixedPool {
		i = c.fixedRow
	} else {
		i = c.pickers[pi].pick(c.random, c.counter)
	}
	c.rows[pi] = i
	return i
}

const randomChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const hexDigits = "0123456789abcdef"

// render appends the template's text to b.
func (c *ictx) render(b []byte, t *template) []byte {
	for i := range t.parts {
		p := &t.parts[i]
		switch p.kind {
		case partText:
			b = append(b, p.text...)
		case partPool:
			r := c.row(p.pool)
			if p.capture >= 0 && c.data != nil {
				if rows := c.data.rows[p.pool]; r < len(rows) && rows[r] != nil && rows[r][p.capture].ok {
					b = append(b, rows[r][p.capture].v...)
					continue
				}
			}
			if p.base >= 0 {
				b = c.prog.pools[p.pool].appendField(b, r, p.base)
			} else {
				b = append(b, "undefined"...)
			}
		case partSetup:
			if c.data != nil && p.index < len(c.data.vars) && c.data.vars[p.index].ok {
				b = append(b, c.data.vars[p.index].v...)
			} else {
				b = append(b, "undefined"...)
			}
		case partEnv:
			if v, ok := c.env[p.text]; ok {
				b = append(b, v...)
			} else {
				b = append(b, "undefined"...)
			}
		case partRandomInt:
			// obRandomInt, in floating point as in the script.
			v := float64(p.a) + math.Floor(c.random()*(float64(p.b)-float64(p.a)+1))
			b = appendJSNumber(b, v)
		case partRandomString:
			for range p.a {
				b = append(b, randomChars[int(c.random()*float64(len(randomChars)))])
			}
		case partUUID:
			for j := range 36 {
				switch j {
				case 8, 13, 18, 23:
					b = append(b, '-')
				case 14:
					b = append(b, '4')
				case 19:
					b = append(b, hexDigits[8+int(c.random()*4)])
				default:
					b = append(b, hexDigits[int(c.random()*16)])
				}
			}
		case partVU:
			b = strconv.AppendInt(b, c.vu, 10)
		case partIteration:
			b = strconv.AppendInt(b, c.iter, 10)
		case partTimestamp:
			b = strconv.AppendInt(b, time.Now().UnixMilli(), 10)
		}
	}
	return b
}
