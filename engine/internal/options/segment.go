package options

// Execution segments, as k6 documents them: `--execution-segment 1/4:2/4` runs
// one part of a test, `--execution-segment-sequence 0,1/4,2/4,3/4,1` names all
// the parts the test is split into (one per load generator). Every count of
// the test (VUs, iterations, arrival-rate iterations) is split between the
// parts so that the parts add up exactly to the whole test.
//
// How (our own scheme): the sequence's boundaries have a least common
// denominator L; every window of L consecutive items (VU numbers, iteration
// numbers) gives each part as many items as its length times L. Which items of
// a window a part owns is spread evenly (smooth weighted round robin), so small
// counts are also shared fairly, and the biggest part gets item 0. A part's
// share of n items is how many items below n it owns; its k-th item has a
// number in the whole test (idInTest, iterationInTest) that no other part has.

import (
	"fmt"
	"math/big"
	"strings"
)

// maxStripeWindow bounds L: sequences with finer fractions are refused.
const maxStripeWindow = 1_000_000

// Striper maps a part's items to the whole test's; the zero value is not valid, use FullStriper.
type Striper struct {
	window  int64   // L
	offsets []int64 // the positions of a window this part owns, ascending
	// Segment and Sequence as given (normalised), "" for a whole test.
	Segment, Sequence string
	// Index is the part's position in the sequence; Parts how many parts there are.
	Index, Parts int
}

// FullStriper is the striper of an unsplit test: every item is its own.
func FullStriper() *Striper { return &Striper{window: 1, offsets: []int64{0}, Parts: 1} }

// Full tells whether the striper covers the whole test.
func (s *Striper) Full() bool { return s.window == int64(len(s.offsets)) }

// Scale is this part's share of n items of the whole test.
func (s *Striper) Scale(n int64) int64 {
	if n <= 0 {
		return 0
	}
	w := int64(len(s.offsets))
	q, r := n/s.window, n%s.window
	c := q * w
	for _, o := range s.offsets {
		if o >= r {
			break
		}
		c++
	}
	return c
}

// Global is the whole-test number (0-based) of this part's item k (0-based).
func (s *Striper) Global(k int64) int64 {
	w := int64(len(s.offsets))
	if w == 0 {
		return -1
	}
	return (k/w)*s.window + s.offsets[k%w]
}

// Owns tells whether item g of the whole test is this part's.
func (s *Striper) Owns(g int64) bool {
	r := g % s.window
	for _, o := range s.offsets {
		if o == r {
			return true
		}
	}
	return false
}

func parseFraction(s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	if pct {
		s = strings.TrimSuffix(s, "%")
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q is not a fraction (expected e.g. 1/4, 0.25 or 25%%)", s)
	}
	if pct {
		r.Quo(r, big.NewRat(100, 1))
	}
	if r.Sign() < 0 || r.Cmp(big.NewRat(1, 1)) > 0 {
		return nil, fmt.Errorf("%s is not between 0 and 1", r.RatString())
	}
	return r, nil
}

// NewStriper reads --execution-segment and --execution-segment-sequence; both empty means the whole test.
func NewStriper(segment, sequence string) (*Striper, error) {
	segment, sequence = strings.TrimSpace(segment), strings.TrimSpace(sequence)
	if segment == "" && sequence == "" {
		return FullStriper(), nil
	}
	zero, one := new(big.Rat), big.NewRat(1, 1)
	from, to := new(big.Rat), big.NewRat(1, 1)
	if segment != "" {
		a, b, found := strings.Cut(segment, ":")
		var err error
		if !found { // "1/4" means "0:1/4"
			a, b = "0", a
		}
		if from, err = parseFraction(a); err != nil {
			return nil, fmt.Errorf("execution segment %q: %v", segment, err)
		}
		if to, err = parseFraction(b); err != nil {
			return nil, fmt.Errorf("execution segment %q: %v", segment, err)
		}
		if from.Cmp(to) >= 0 {
			return nil, fmt.Errorf("execution segment %q: its start must be below its end", segment)
		}
	}
	var bounds []*big.Rat
	if sequence != "" {
		for _, p := range strings.Split(sequence, ",") {
			r, err := parseFraction(p)
			if err != nil {
				return nil, fmt.Errorf("execution segment sequence %q: %v", sequence, err)
			}
			if n := len(bounds); n > 0 && r.Cmp(bounds[n-1]) <= 0 {
				return nil, fmt.Errorf("execution segment sequence %q: the values must increase", sequence)
			}
			bounds = append(bounds, r)
		}
		if bounds[0].Sign() != 0 {
			bounds = append([]*big.Rat{zero}, bounds...)
		}
		if bounds[len(bounds)-1].Cmp(one) != 0 {
			bounds = append(bounds, one)
		}
	} else {
		bounds = []*big.Rat{zero}
		for _, r := range []*big.Rat{from, to, one} {
			if r.Cmp(bounds[len(bounds)-1]) > 0 {
				bounds = append(bounds, r)
			}
		}
	}
	index := -1
	for i := 0; i+1 < len(bounds); i++ {
		if bounds[i].Cmp(from) == 0 && bounds[i+1].Cmp(to) == 0 {
			index = i
		}
	}
	if index < 0 {
		return nil, fmt.Errorf("execution segment %q is not one of the parts of the sequence %q", segment, sequence)
	}
	// L: the least common multiple of the denominators.
	l := big.NewInt(1)
	for _, b := range bounds {
		d := b.Denom()
		g := new(big.Int).GCD(nil, nil, l, d)
		l.Mul(l, new(big.Int).Quo(d, g))
		if l.Cmp(big.NewInt(maxStripeWindow)) > 0 {
			return nil, fmt.Errorf("execution segment sequence %q: its fractions are too fine (common denominator above %d)", sequence, maxStripeWindow)
		}
	}
	window := l.Int64()
	parts := len(bounds) - 1
	weights := make([]int64, parts)
	for i := range weights {
		length := new(big.Rat).Sub(bounds[i+1], bounds[i])
		weights[i] = new(big.Rat).Mul(length, new(big.Rat).SetInt64(window)).Num().Int64()
	}
	// Smooth weighted round robin over one window: each part gets exactly its weight, spread evenly.
	current := make([]int64, parts)
	var offsets []int64
	for p := int64(0); p < window; p++ {
		best := 0
		for i := range current {
			current[i] += weights[i]
			if current[i] > current[best] {
				best = i
			}
		}
		current[best] -= window
		if best == index {
			offsets = append(offsets, p)
		}
	}
	seq := make([]string, len(bounds))
	for i, b := range bounds {
		seq[i] = b.RatString()
	}
	return &Striper{
		window: window, offsets: offsets,
		Segment:  from.RatString() + ":" + to.RatString(),
		Sequence: strings.Join(seq, ","),
		Index:    index, Parts: parts,
	}, nil
}
