package declarative

import (
	"math"
	"math/rand/v2"
	"testing"
)

func zipfProbabilities(n int, s float64) []float64 {
	p := make([]float64, n)
	total := 0.0
	for i := range p {
		p[i] = math.Pow(float64(i+1), -s)
		total += p[i]
	}
	for i := range p {
		p[i] /= total
	}
	return p
}

func chiSquare(counts []int, probs []float64, draws int) float64 {
	sum := 0.0
	for i, p := range probs {
		e := float64(draws) * p
		d := float64(counts[i]) - e
		sum += d * d / e
	}
	return sum
}

// chiSquareCritical is the p = 0.001 critical value with df degrees of freedom (Wilson-Hilferty), as runtime.ts's test uses.
func chiSquareCritical(df int) float64 {
	d := float64(df)
	return d * math.Pow(1-2/(9*d)+3.09*math.Sqrt(2/(9*d)), 3)
}

func seeded(seed uint64) func() float64 {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)).Float64
}

// The same cases and bounds as opsbench's test of the script's sampler (workloads-sampling.test.ts).
func TestZipfMatchesTheDistribution(t *testing.T) {
	for _, tc := range []struct {
		n int
		s float64
	}{{100, 1.25}, {100, 1}, {50, 0.5}, {20, 3}} {
		const draws = 200_000
		z := newZipf(tc.n, tc.s)
		random := seeded(uint64(tc.n*1000) + uint64(tc.s*100))
		counts := make([]int, tc.n)
		for range draws {
			k := z.draw(random)
			if k < 1 || k > tc.n {
				t.Fatalf("Zipf(%d, %v) drew %d", tc.n, tc.s, k)
			}
			counts[k-1]++
		}
		probs := zipfProbabilities(tc.n, tc.s)
		if x, crit := chiSquare(counts, probs, draws), chiSquareCritical(tc.n-1); x >= crit {
			t.Errorf("Zipf(%d, %v): chi-square %.1f >= %.1f", tc.n, tc.s, x, crit)
		}
		for k := range 3 {
			if d := math.Abs(float64(counts[k])/draws - probs[k]); d >= 0.005 {
				t.Errorf("Zipf(%d, %v): rank %d frequency off by %.4f", tc.n, tc.s, k+1, d)
			}
		}
	}
}

func TestUniformFailsTheZipfTest(t *testing.T) {
	const draws = 200_000
	random := seeded(7)
	counts := make([]int, 100)
	for range draws {
		counts[int(random()*100)]++
	}
	if x := chiSquare(counts, zipfProbabilities(100, 1.25), draws); x <= 10_000 {
		t.Fatalf("a uniform sampler passes the Zipf test (chi-square %.1f): the test cannot fail", x)
	}
}

func TestZipfLargeAndSingleKey(t *testing.T) {
	big := newZipf(1_000_000, 1.25)
	random := seeded(1)
	for range 10_000 {
		if k := big.draw(random); k < 1 || k > 1_000_000 {
			t.Fatalf("drew %d", k)
		}
	}
	one := newZipf(1, 1.25)
	for range 100 {
		if k := one.draw(random); k != 1 {
			t.Fatalf("one key drew %d", k)
		}
	}
}

func TestPickers(t *testing.T) {
	// Zipf: row 0 is the hottest, with rank 1's probability.
	zp := newPicker(&pool{size: 5000, choice: choiceZipf, zipfS: 1.25})
	random := seeded(3)
	hot := 0
	for range 100_000 {
		if zp.pick(random, nil) == 0 {
			hot++
		}
	}
	if want := zipfProbabilities(5000, 1.25)[0]; math.Abs(float64(hot)/100_000-want) > 0.005 {
		t.Errorf("row 0 drawn %.4f of the time, want %.4f", float64(hot)/100_000, want)
	}

	up := newPicker(&pool{size: 4})
	counts := make([]int, 4)
	for range 40_000 {
		counts[up.pick(random, nil)]++
	}
	for i, c := range counts {
		if c < 9600 || c > 10_400 {
			t.Errorf("uniform row %d drawn %d times of 40000", i, c)
		}
	}

	sp := newPicker(&pool{size: 3, choice: choiceSequential})
	n := int64(0)
	var got []int
	for range 7 {
		got = append(got, sp.pick(random, func() int64 { n++; return n - 1 }))
	}
	if want := []int{0, 1, 2, 0, 1, 2, 0}; !equalInts(got, want) {
		t.Errorf("sequential rows %v, want %v", got, want)
	}
}

func TestWeightedProportions(t *testing.T) {
	w := newWeighted([]float64{3, 1, 0.5, 0.5})
	random := seeded(6)
	counts := make([]int, 4)
	for range 100_000 {
		counts[w.pick(random)]++
	}
	for i, want := range []int{60, 20, 10, 10} {
		if got := int(math.Round(float64(counts[i]) / 1000)); got != want {
			t.Errorf("request %d chosen %d%% of the time, want %d%%", i, got, want)
		}
	}
}

func TestDimensionRows(t *testing.T) {
	p, err := compilePool("user", poolJSON{Dimensions: []dimensionJSON{{"user", 100}, {"device", 5}}}, "p")
	if err != nil {
		t.Fatal(err)
	}
	if p.size != 500 {
		t.Fatalf("size %d", p.size)
	}
	row := func(i int) [3]string {
		return [3]string{string(p.appendField(nil, i, p.baseField("user"))), string(p.appendField(nil, i, p.baseField("device"))),
			string(p.appendField(nil, i, p.baseField("index")))}
	}
	for i, want := range map[int][3]string{0: {"1", "1", "0"}, 7: {"2", "3", "7"}, 499: {"100", "5", "499"}} {
		if got := row(i); got != want {
			t.Errorf("row %d = %v, want %v", i, got, want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The script's obZipf (runtime.ts) fed the same uniform numbers, i * 0.618... mod 1 for i = 1, 2, ...,
// drew these ranks (computed with loadRuntime()); the port must draw exactly the same.
var zipfGolden = map[string]struct {
	n     int
	s     float64
	ranks []int
}{
	"100/1.25":     {100, 1.25, []int{2, 14, 1, 4, 43, 1, 8, 1, 3, 21, 1, 5, 71, 2, 12, 1, 3, 32, 1, 7, 1, 2, 17, 1, 4, 51, 2, 9, 1, 3, 25, 1, 6, 88, 2, 13, 1, 4, 38, 1}},
	"100/1":        {100, 1, []int{4, 29, 1, 9, 63, 3, 18, 1, 5, 39, 2, 12, 84, 3, 25, 1, 7, 53, 2, 15, 1, 33, 1, 10, 70, 3, 21, 1, 6, 44, 2, 13, 94, 4, 27, 1, 8, 59, 2, 17}},
	"50/0.5":       {50, 0.5, []int{10, 31, 3, 17, 43, 7, 25, 1, 12, 35, 4, 20, 47, 9, 29, 2, 15, 40, 6, 23, 1, 11, 33, 3, 18, 44, 7, 27, 1, 13, 37, 5, 21, 49, 9, 30, 2, 16, 42, 6}},
	"20/3":         {20, 3, []int{1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 5, 1, 1, 1, 1, 2, 1, 1}},
	"1000000/1.25": {1_000_000, 1.25, []int{4, 129, 1, 10, 3216, 2, 40, 1, 5, 334, 1, 16, 41023, 3, 79, 1, 8, 1158, 2, 28, 1, 4, 181, 1, 12, 7108, 2, 51, 1, 6, 513, 20, 216053, 3, 107, 1, 9, 2110, 2, 35}},
	"7/0.01":       {7, 0.01, []int{3, 6, 2, 4, 7, 3, 5, 1, 4, 6, 2, 5, 7, 3, 6, 1, 4, 7, 2, 5, 1, 3, 6, 2, 4, 7, 3, 5, 1, 4, 6, 2, 5, 7, 3, 6, 1, 4, 7, 2}},
}

func TestZipfDrawsWhatTheScriptDraws(t *testing.T) {
	for name, g := range zipfGolden {
		i := 0
		random := func() float64 { i++; return math.Mod(float64(i)*0.6180339887498949, 1) }
		z := newZipf(g.n, g.s)
		got := make([]int, len(g.ranks))
		for j := range got {
			got[j] = z.draw(random)
		}
		if !equalInts(got, g.ranks) {
			t.Errorf("Zipf %s drew %v, the script %v", name, got, g.ranks)
		}
	}
}
