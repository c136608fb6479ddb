package declarative

import (
	"bytes"
	"encoding/json"
	"math"
)

// parseChoice reads "uniform", "sequential" or {"zipf": s}; absent means uniform (as in the script).
func (p *pool) parseChoice(raw json.RawMessage, at string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		switch name {
		case "uniform":
			p.choice = choiceUniform
		case "sequential":
			p.choice = choiceSequential
		default:
			return loadErr(at, `expected "uniform", "sequential" or {"zipf": s}, got %q`, name)
		}
		return nil
	}
	var z struct {
		Zipf *float64 `json:"zipf"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&z); err != nil || z.Zipf == nil {
		return loadErr(at, `expected "uniform", "sequential" or {"zipf": s}, got %s`, raw)
	}
	if !(*z.Zipf > 0) || *z.Zipf > 10 {
		return loadErr(at+".zipf", "the exponent must be in (0, 10], got %v", *z.Zipf)
	}
	p.choice, p.zipfS = choiceZipf, *z.Zipf
	return nil
}

// zipf draws ranks 1..n with probability proportional to k^-s by rejection-inversion
// (Hoermann & Derflinger 1996), a port of obZipf in opsbench's runtime.ts: O(1)
// memory and time per draw for any n and s > 0.
type zipf struct {
	n, s, hX1, hN, cut float64
}

const zipfTaylorThreshold = 1e-8

// zipfHelper1 is log1p(x)/x, by its Taylor series near 0.
func zipfHelper1(x float64) float64 {
	if math.Abs(x) > zipfTaylorThreshold {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// zipfHelper2 is expm1(x)/x, by its Taylor series near 0.
func zipfHelper2(x float64) float64 {
	if math.Abs(x) > zipfTaylorThreshold {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}

func newZipf(n int, s float64) *zipf {
	z := &zipf{n: float64(n), s: s}
	z.hX1 = z.hIntegral(1.5) - 1
	z.hN = z.hIntegral(float64(n) + 0.5)
	z.cut = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

func (z *zipf) hIntegral(x float64) float64 {
	l := math.Log(x)
	return zipfHelper2((1-z.s)*l) * l
}

func (z *zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

func (z *zipf) hIntegralInverse(x float64) float64 {
	t := x * (1 - z.s)
	if t < -1 {
		t = -1
	}
	return math.Exp(zipfHelper1(t) * x)
}

// draw returns a rank in 1..n; random returns uniform numbers in [0, 1).
func (z *zipf) draw(random func() float64) int {
	for {
		u := z.hN + random()*(z.hX1-z.hN)
		x := z.hIntegralInverse(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if k-x <= z.cut || u >= z.hIntegral(k+0.5)-z.h(k) {
			return int(k)
		}
	}
}

// weighted picks an index with probability weight / sum(weights) (obWeighted).
type weighted struct {
	cum   []float64
	total float64
}

func newWeighted(weights []float64) *weighted {
	w := &weighted{cum: make([]float64, len(weights))}
	for i, x := range weights {
		w.total += x
		w.cum[i] = w.total
	}
	return w
}

func (w *weighted) pick(random func() float64) int {
	r := random() * w.total
	for j, c := range w.cum {
		if r < c {
			return j
		}
	}
	return len(w.cum) - 1
}

// picker chooses a pool's row for one VU (obPicker): uniform, sequential by a
// counter (the iteration's number in the test), or Zipf with row 0 the hottest.
type picker struct {
	kind choiceKind
	size int
	zipf *zipf
}

func newPicker(p *pool) picker {
	pk := picker{kind: p.choice, size: p.size}
	if p.choice == choiceZipf {
		pk.zipf = newZipf(p.size, p.zipfS)
	}
	return pk
}

func (pk *picker) pick(random func() float64, counter func() int64) int {
	switch pk.kind {
	case choiceSequential:
		// The counter is never negative; JS's % keeps the sign of the dividend, as Go's does.
		return int(counter() % int64(pk.size))
	case choiceZipf:
		return pk.zipf.draw(random) - 1
	default:
		return int(math.Floor(random() * float64(pk.size)))
	}
}
