package options

import (
	"math"
	"math/big"
	"sort"
	"time"
)

// Part is this instance's share of a scenario under its execution segment (the whole scenario without one).
type Part struct {
	// VUs this instance runs: shared-iterations, per-vu-iterations, constant-vus.
	VUs int64
	// Iterations: shared-iterations, this instance's total; per-vu-iterations, each VU's.
	Iterations int64
	// PreAllocatedVUs and MaxVUs of an arrival-rate scenario.
	PreAllocatedVUs, MaxVUs int64
	// PlannedVUs are the VUs the scenario needs from its start (initialised before the test);
	// PeakVUs the most it may use (arrival-rate executors add VUs up to MaxVUs during the test).
	PlannedVUs, PeakVUs int64
}

// Part splits a scenario for this instance. VUs and iterations are split with the striper, so the parts of a
// sequence add up to the whole; the exceptions, which keep a part with work from having no VU at all, are a
// shared-iterations part with iterations but no VU of its own share (it gets 1 VU) and an arrival-rate part whose
// share of maxVUs is 0 (it gets 1 VU, pre-allocated when the scenario pre-allocates any).
func (o *Options) Part(s *Scenario) Part {
	st := o.Striper
	var p Part
	switch s.Executor {
	case SharedIterations:
		p.Iterations = st.Scale(s.Iterations)
		p.VUs = st.Scale(s.VUs)
		if p.VUs == 0 && p.Iterations > 0 {
			p.VUs = 1
		}
		p.PlannedVUs, p.PeakVUs = p.VUs, p.VUs
	case PerVUIterations:
		p.VUs, p.Iterations = st.Scale(s.VUs), s.Iterations
		p.PlannedVUs, p.PeakVUs = p.VUs, p.VUs
	case ConstantVUs:
		p.VUs = st.Scale(s.VUs)
		p.PlannedVUs, p.PeakVUs = p.VUs, p.VUs
	case RampingVUs:
		p.PeakVUs = st.Scale(s.MaxVUsWhole()) // Scale is monotone: the share of the peak is the peak of the shares
		p.PlannedVUs = p.PeakVUs
	case ConstantArrivalRate, RampingArrivalRate:
		p.PreAllocatedVUs, p.MaxVUs = st.Scale(s.PreAllocatedVUs), st.Scale(s.MaxVUs)
		if p.MaxVUs == 0 && o.ArrivalCount(s) > 0 {
			p.MaxVUs = 1
			if s.PreAllocatedVUs > 0 {
				p.PreAllocatedVUs = 1
			}
		}
		p.PlannedVUs, p.PeakVUs = p.PreAllocatedVUs, p.MaxVUs
	}
	return p
}

// Requirements are k6's execution requirements (`k6 inspect --execution-requirements`) and this instance's.
type Requirements struct {
	// TotalDuration: the latest end of any scenario, startTime + duration (or stages, or maxDuration) + gracefulStop.
	TotalDuration time.Duration
	// MaxVUs: the most VUs of the whole test at any time (scenarios that overlap add up; arrival-rate at maxVUs).
	MaxVUs int64
	// SegmentMaxVUs: the same for this instance's segment.
	SegmentMaxVUs int64
	// InitialVUs: the VUs this instance initialises before the test (arrival-rate scenarios at preAllocatedVUs).
	InitialVUs int64
	// PeakArrivalRate: the most iterations per second the arrival-rate scenarios start at once (whole test): each
	// at its own peak, summed over those whose starting windows overlap (core's peakArrivalRate sums the same way).
	PeakArrivalRate float64
}

func (o *Options) Requirements() Requirements {
	var r Requirements
	whole := make([]interval[int64], 0, len(o.Scenarios))
	seg := make([]interval[int64], 0, len(o.Scenarios))
	initial := make([]interval[int64], 0, len(o.Scenarios))
	rates := make([]interval[float64], 0, len(o.Scenarios))
	for _, s := range o.Scenarios {
		end := s.EndOffset()
		r.TotalDuration = max(r.TotalDuration, end)
		if sch := s.Schedule(); sch != nil {
			rates = append(rates, interval[float64]{s.StartTime, s.StartTime + time.Duration(sch.end*float64(time.Second)), s.PeakRatePerSecond()})
		}
		p := o.Part(s)
		whole = append(whole, interval[int64]{s.StartTime, end, s.MaxVUsWhole()})
		seg = append(seg, interval[int64]{s.StartTime, end, p.PeakVUs})
		initial = append(initial, interval[int64]{s.StartTime, end, p.PlannedVUs})
	}
	r.MaxVUs, r.SegmentMaxVUs, r.InitialVUs = peak(whole), peak(seg), peak(initial)
	r.PeakArrivalRate = peak(rates)
	return r
}

// interval: a scenario holds n of something (VUs, or iterations started a second) from start until end.
type interval[N int64 | float64] struct {
	start, end time.Duration
	n          N
}

// peak is the most held at once: the amounts of the scenarios whose windows overlap, summed (a scenario starting
// when another ends reuses what it released, so releases are counted first).
func peak[N int64 | float64](iv []interval[N]) N {
	type ev struct {
		at time.Duration
		d  N
	}
	evs := make([]ev, 0, 2*len(iv))
	for _, i := range iv {
		evs = append(evs, ev{i.start, i.n}, ev{i.end, -i.n})
	}
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		return evs[a].d < evs[b].d // releases first
	})
	var cur, top N
	for _, e := range evs {
		cur += e.d
		top = max(top, cur)
	}
	return top
}

// RampingVUsAt is the whole test's VU count of a ramping-vus scenario at offset t from its start: each stage moves
// linearly from the previous target to its own; the count changes when the line crosses the next whole number.
func (s *Scenario) RampingVUsAt(t time.Duration) int64 {
	t = max(t, 0)
	prev := s.StartVUs
	for _, st := range s.Stages {
		d := st.Duration.D()
		if t < d {
			diff := st.Target - prev
			step := int64(math.Floor(math.Abs(float64(diff)) * float64(t) / float64(d)))
			if diff < 0 {
				return prev - step
			}
			return prev + step
		}
		t -= d
		prev = st.Target
	}
	return prev
}

// NextRampingChange is the first offset after t at which RampingVUsAt changes, and false when it does not change anymore.
func (s *Scenario) NextRampingChange(t time.Duration) (time.Duration, bool) {
	prev := s.StartVUs
	var stageStart time.Duration
	for _, st := range s.Stages {
		d := st.Duration.D()
		end := stageStart + d
		if d == 0 {
			if stageStart > t && st.Target != prev {
				return stageStart, true
			}
		} else if t < end {
			diff := st.Target - prev
			n := abs(diff)
			if n > 0 {
				// The count moves by one at stageStart + d*j/n for j = 1..n (j = n is the stage's end).
				local := max(t-stageStart, 0)
				j := int64(float64(local)*float64(n)/float64(d)) + 1
				for ; j <= n; j++ {
					at := stageStart + time.Duration(float64(d)*float64(j)/float64(n))
					if at > t {
						return at, true
					}
				}
			}
		}
		stageStart = end
		prev = st.Target
	}
	return 0, false
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Schedule is when an arrival-rate scenario starts each iteration of the whole test (k6's open model).
type Schedule struct {
	pieces []ratePiece
	end    float64 // seconds
	count  int64
}

// ratePiece: the rate goes linearly from r0 to r1 (iterations per second) over [t0, t0+d]; c0 iterations are due before it.
type ratePiece struct {
	t0, d, r0, r1, c0 float64
}

// Schedule builds the iteration schedule of an arrival-rate scenario (nil for other executors).
func (s *Scenario) Schedule() *Schedule {
	unit := s.TimeUnit.Seconds()
	sch := &Schedule{}
	switch s.Executor {
	case ConstantArrivalRate:
		r := float64(s.Rate) / unit
		sch.pieces = []ratePiece{{0, s.Duration.Seconds(), r, r, 0}}
		sch.end = s.Duration.Seconds()
		// count = ceil(rate * duration / timeUnit), exactly.
		n := new(big.Int).Mul(big.NewInt(s.Rate), big.NewInt(int64(s.Duration)))
		q, m := new(big.Int).QuoRem(n, big.NewInt(int64(s.TimeUnit)), new(big.Int))
		sch.count = q.Int64()
		if m.Sign() > 0 {
			sch.count++
		}
		return sch
	case RampingArrivalRate:
		var t, c float64
		prev := float64(s.StartRate) / unit
		for _, st := range s.Stages {
			d := st.Duration.D().Seconds()
			r1 := float64(st.Target) / unit
			sch.pieces = append(sch.pieces, ratePiece{t, d, prev, r1, c})
			c += (prev + r1) / 2 * d
			t += d
			prev = r1
		}
		sch.end = t
		// Iteration k is due while k < C(end); a hair of rounding error must not add one.
		sch.count = int64(math.Ceil(math.Round(c*1e6) / 1e6))
		return sch
	}
	return nil
}

// Count is how many iterations the whole test starts.
func (sch *Schedule) Count() int64 { return sch.count }

// Offset is when iteration k of the whole test (0-based) is due, from the scenario's start: the moment the
// cumulative rate passes k (iteration 0 at the start when the rate is above 0 there). False when k is past the end.
func (sch *Schedule) Offset(k int64) (time.Duration, bool) {
	if k < 0 || k >= sch.count {
		return 0, false
	}
	kf := float64(k)
	// The first piece whose end count is above k.
	i := sort.Search(len(sch.pieces), func(i int) bool {
		p := sch.pieces[i]
		return p.c0+(p.r0+p.r1)/2*p.d > kf
	})
	if i == len(sch.pieces) {
		i = len(sch.pieces) - 1 // rounding at the very end
	}
	p := sch.pieces[i]
	x := kf - p.c0
	var s float64
	switch {
	case x <= 0:
		s = 0
	default:
		a := 0.0
		if p.d > 0 {
			a = (p.r1 - p.r0) / p.d
		}
		// Solve r0*s + a*s²/2 = x in a form that is stable for rising and falling rates.
		disc := p.r0*p.r0 + 2*a*x
		if disc < 0 {
			disc = 0
		}
		den := p.r0 + math.Sqrt(disc)
		if den <= 0 {
			s = p.d
		} else {
			s = 2 * x / den
		}
		s = min(s, p.d)
	}
	off := time.Duration((p.t0 + s) * float64(time.Second))
	return off, true
}

// ArrivalCount is how many iterations this instance's part of an arrival-rate scenario starts.
func (o *Options) ArrivalCount(s *Scenario) int64 {
	sch := s.Schedule()
	if sch == nil {
		return 0
	}
	return o.Striper.Scale(sch.Count())
}
