package scheduler

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/options"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// fakeRunner runs iterations with a Go function.
type fakeRunner struct {
	iter   func(a vu.Activation, it vu.Iteration) error
	newVUs atomic.Int64
	mu     sync.Mutex
	starts []started
}

type started struct {
	at       time.Time
	scenario string
	vuID     uint64
	it       vu.Iteration
	env      map[string]string
	tags     *metrics.TagSet
}

func (f *fakeRunner) Options() json.RawMessage { return nil }
func (f *fakeRunner) NewVU(_ context.Context, idInInstance, idInTest uint64) (vu.VU, error) {
	f.newVUs.Add(1)
	return &fakeVU{f: f, id: idInTest}, nil
}
func (f *fakeRunner) Setup(context.Context) (json.RawMessage, error)  { return nil, nil }
func (f *fakeRunner) Teardown(context.Context, json.RawMessage) error { return nil }
func (f *fakeRunner) HasExec(string) bool                             { return true }
func (f *fakeRunner) HandleSummary(context.Context, map[string]any) (map[string]string, bool, error) {
	return nil, false, nil
}

func (f *fakeRunner) startsOf(scenario string) []started {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []started
	for _, s := range f.starts {
		if s.scenario == scenario {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

type fakeVU struct {
	f  *fakeRunner
	id uint64
}

func (v *fakeVU) Activate(p vu.Activation) vu.ActiveVU { return &fakeActive{v: v, a: p} }

type fakeActive struct {
	v *fakeVU
	a vu.Activation
}

func (a *fakeActive) RunIteration(it vu.Iteration) error {
	f := a.v.f
	f.mu.Lock()
	f.starts = append(f.starts, started{time.Now(), a.a.Scenario, a.v.id, it, a.a.Env, a.a.Tags})
	f.mu.Unlock()
	if f.iter != nil {
		return f.iter(a.a, it)
	}
	return nil
}

// sink counts samples per metric and keeps dropped_iterations' tags.
type sink struct {
	mu      sync.Mutex
	sums    map[string]float64
	counts  map[string]int
	tags    map[string]*metrics.TagSet
	samples []metrics.Sample
}

func (s *sink) AddSamples(samples []metrics.Sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range samples {
		s.sums[x.Metric.Name] += x.Value
		s.counts[x.Metric.Name]++
		s.tags[x.Metric.Name] = x.Tags
		s.samples = append(s.samples, x)
	}
}

func (s *sink) sum(name string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sums[name]
}

type harness struct {
	t      *testing.T
	runner *fakeRunner
	sink   *sink
	sched  *Scheduler
	opts   *options.Options
}

func newHarness(t *testing.T, script string, flags options.Flags, iter func(a vu.Activation, it vu.Iteration) error) *harness {
	t.Helper()
	o, err := options.Consolidate(json.RawMessage(script), nil, flags)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, runner: &fakeRunner{iter: iter}, opts: o,
		sink: &sink{sums: map[string]float64{}, counts: map[string]int{}, tags: map[string]*metrics.TagSet{}}}
	h.sched = New(Config{Options: o, Runner: h.runner, Samples: h.sink, Registry: metrics.NewRegistry(),
		Env: map[string]string{"BASE": "1", "OVER": "test"}})
	if err := h.sched.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h
}

// run runs the test and returns how long it took.
func (h *harness) run() time.Duration {
	h.t.Helper()
	start := time.Now()
	if err := h.sched.Run(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	return time.Since(start)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestSharedIterations(t *testing.T) {
	h := newHarness(t, `{"scenarios":{"s":{"executor":"shared-iterations","vus":3,"iterations":10,
		"env":{"OVER":"scenario"},"tags":{"kind":"shared"}}},"tags":{"team":"a"}}`, options.Flags{}, nil)
	h.run()
	if got := h.sink.sum("iterations"); got != 10 {
		t.Errorf("iterations: %v", got)
	}
	if h.runner.newVUs.Load() != 3 {
		t.Errorf("VUs initialised: %d", h.runner.newVUs.Load())
	}
	seen := map[int64]bool{}
	for _, s := range h.runner.startsOf("s") {
		if seen[s.it.InTest] || s.it.InTest < 0 || s.it.InTest >= 10 {
			t.Errorf("iterationInTest %d repeated or out of range", s.it.InTest)
		}
		seen[s.it.InTest] = true
		if s.env["BASE"] != "1" || s.env["OVER"] != "scenario" {
			t.Errorf("env: %v", s.env)
		}
		if v, _ := s.tags.Get("scenario"); v != "s" {
			t.Errorf("tags: %v", s.tags)
		}
		if v, _ := s.tags.Get("team"); v != "a" {
			t.Errorf("tags: %v", s.tags)
		}
	}
	tags := h.sink.tags["iterations"]
	if v, _ := tags.Get("kind"); v != "shared" {
		t.Errorf("iteration tags: %v", tags)
	}
	if h.sink.counts["iteration_duration"] != 10 || h.sched.IterationsCompleted() != 10 {
		t.Errorf("iteration_duration samples %d, completed %d", h.sink.counts["iteration_duration"], h.sched.IterationsCompleted())
	}
	if h.sink.counts["vus_max"] == 0 || h.sink.counts["vus"] == 0 {
		t.Error("vus and vus_max are not measured")
	}
}

func TestPerVUIterations(t *testing.T) {
	h := newHarness(t, `{"scenarios":{"p":{"executor":"per-vu-iterations","vus":3,"iterations":4}}}`, options.Flags{}, nil)
	h.run()
	per := map[uint64]int{}
	for _, s := range h.runner.startsOf("p") {
		per[s.vuID]++
	}
	if len(per) != 3 || h.sink.sum("iterations") != 12 {
		t.Errorf("per VU %v, total %v", per, h.sink.sum("iterations"))
	}
	for id, n := range per {
		if n != 4 {
			t.Errorf("VU %d ran %d iterations", id, n)
		}
	}
}

func TestConstantVUsAndStartTime(t *testing.T) {
	h := newHarness(t, `{"scenarios":{
		"c":{"executor":"constant-vus","vus":2,"duration":"300ms"},
		"late":{"executor":"per-vu-iterations","vus":1,"iterations":1,"startTime":"200ms"}}}`, options.Flags{},
		func(a vu.Activation, it vu.Iteration) error { return sleepCtx(a.Ctx, 50*time.Millisecond) })
	start := time.Now()
	took := h.run()
	cs := h.runner.startsOf("c")
	if n := len(cs); n < 8 || n > 14 {
		t.Errorf("constant-vus: %d iterations, want about 12", n)
	}
	if last := cs[len(cs)-1].at.Sub(start); last > 320*time.Millisecond {
		t.Errorf("an iteration started at %v, after the 300ms duration", last)
	}
	late := h.runner.startsOf("late")
	if len(late) != 1 {
		t.Fatalf("late: %d iterations", len(late))
	}
	if at := late[0].at.Sub(start); at < 200*time.Millisecond || at > 300*time.Millisecond {
		t.Errorf("startTime 200ms: started at %v", at)
	}
	// The VUs of the two scenarios overlap: 3 at most.
	if n := h.runner.newVUs.Load(); n != 3 {
		t.Errorf("initialised %d VUs", n)
	}
	if took > time.Second {
		t.Errorf("took %v", took)
	}
}

func TestRampingVUsStages(t *testing.T) {
	var active atomic.Int64
	var peakAt atomic.Int64 // ns after start the 4th VU ran its first iteration
	var start time.Time
	h := newHarness(t, `{"scenarios":{"r":{"executor":"ramping-vus","startVUs":0,
		"stages":[{"duration":"400ms","target":4},{"duration":"400ms","target":0}],"gracefulRampDown":"0s"}}}`, options.Flags{},
		func(a vu.Activation, it vu.Iteration) error {
			if n := a.State.VUsActive(); n >= 4 && peakAt.Load() == 0 {
				peakAt.Store(int64(time.Since(start)))
			}
			active.Store(a.State.VUsActive())
			return sleepCtx(a.Ctx, 10*time.Millisecond)
		})
	start = time.Now()
	took := h.run()
	// 4 VUs are reached at the end of the first stage (400ms), within 100ms.
	if p := time.Duration(peakAt.Load()); p < 390*time.Millisecond || p > 500*time.Millisecond {
		t.Errorf("4 VUs at %v, want 400ms (+100ms)", p)
	}
	rs := h.runner.startsOf("r")
	// The count ramps 1 VU per 100ms; the first iteration is at about 100ms.
	if first := rs[0].at.Sub(start); first < 90*time.Millisecond || first > 200*time.Millisecond {
		t.Errorf("first iteration at %v, want 100ms", first)
	}
	if last := rs[len(rs)-1].at.Sub(start); last > 820*time.Millisecond || last < 600*time.Millisecond {
		t.Errorf("last iteration started at %v, want before the end of stages (800ms) and after 600ms", last)
	}
	if took > 900*time.Millisecond {
		t.Errorf("took %v", took)
	}
}

func TestGracefulRampDownInterrupts(t *testing.T) {
	var interruptedAt sync.Map
	var start time.Time
	h := newHarness(t, `{"scenarios":{"r":{"executor":"ramping-vus","startVUs":2,
		"stages":[{"duration":"100ms","target":2},{"duration":"0s","target":0},{"duration":"300ms","target":0}],
		"gracefulRampDown":"50ms","gracefulStop":"0s"}}}`, options.Flags{},
		func(a vu.Activation, it vu.Iteration) error {
			<-a.Ctx.Done()
			interruptedAt.Store(it.InInstance, time.Since(start))
			return a.Ctx.Err()
		})
	start = time.Now()
	took := h.run()
	n := 0
	interruptedAt.Range(func(_, v any) bool {
		n++
		if d := v.(time.Duration); d < 140*time.Millisecond || d > 250*time.Millisecond {
			t.Errorf("interrupted at %v, want 150ms (ramp-down at 100ms + gracefulRampDown 50ms)", d)
		}
		return true
	})
	if n != 2 || h.sched.IterationsInterrupted() != 2 || h.sink.sum("iterations") != 0 {
		t.Errorf("interrupted %d/%d, iterations %v", n, h.sched.IterationsInterrupted(), h.sink.sum("iterations"))
	}
	if took < 390*time.Millisecond || took > 550*time.Millisecond {
		t.Errorf("took %v, want the stages' 400ms", took)
	}
}

func TestGracefulStopInterrupts(t *testing.T) {
	h := newHarness(t, `{"scenarios":{"c":{"executor":"constant-vus","vus":1,"duration":"100ms","gracefulStop":"100ms"}}}`,
		options.Flags{}, func(a vu.Activation, it vu.Iteration) error {
			return sleepCtx(a.Ctx, 5*time.Second)
		})
	took := h.run()
	if took < 190*time.Millisecond || took > 400*time.Millisecond {
		t.Errorf("took %v, want duration + gracefulStop = 200ms", took)
	}
	if h.sched.IterationsInterrupted() != 1 || h.sched.IterationsCompleted() != 0 || h.sink.sum("iterations") != 0 {
		t.Errorf("interrupted %d, completed %d", h.sched.IterationsInterrupted(), h.sched.IterationsCompleted())
	}
}

func TestGracefulStopLetsIterationsFinish(t *testing.T) {
	h := newHarness(t, `{"scenarios":{"c":{"executor":"constant-vus","vus":2,"duration":"100ms","gracefulStop":"1s"}}}`,
		options.Flags{}, func(a vu.Activation, it vu.Iteration) error {
			return sleepCtx(a.Ctx, 150*time.Millisecond)
		})
	took := h.run()
	if h.sink.sum("iterations") != 2 || h.sched.IterationsInterrupted() != 0 {
		t.Errorf("iterations %v, interrupted %d", h.sink.sum("iterations"), h.sched.IterationsInterrupted())
	}
	if took > 400*time.Millisecond {
		t.Errorf("took %v: the scenario must end when its last iteration does", took)
	}
}

// The open model: 1000 iterations/s start on time (a shortened version of 1000/s for 30s).
func TestConstantArrivalRate(t *testing.T) {
	h := newHarness(t, `{"scenarios":{"a":{"executor":"constant-arrival-rate","rate":1000,"duration":"2s","preAllocatedVUs":20}}}`,
		options.Flags{}, nil)
	start := time.Now()
	h.run()
	as := h.runner.startsOf("a")
	// The schedule is exact: every due iteration is started or dropped. A starved machine (the suite's other files on
	// 2 cores) may find all 20 VUs still busy for a moment and drop one (seen: 1 of 2000), as k6 does; a quiet one drops none.
	dropped := int(h.sink.sum("dropped_iterations"))
	if n := len(as) + dropped; n < 1998 || n > 2002 {
		t.Errorf("started %d + dropped %d iterations, want 2000 +-0.1%% due", len(as), dropped)
	}
	if dropped > 20 {
		t.Errorf("dropped %d of 2000, want under 1%%", dropped)
	}
	seen := map[int64]bool{}
	late := 0
	for _, s := range as {
		if seen[s.it.InTest] {
			t.Fatalf("iteration %d twice", s.it.InTest)
		}
		seen[s.it.InTest] = true
		want := start.Add(time.Duration(s.it.InTest) * time.Millisecond)
		if d := s.it.ScheduledAt.Sub(want); d < -5*time.Millisecond || d > 5*time.Millisecond {
			t.Fatalf("iteration %d planned at %v, want %v", s.it.InTest, s.it.ScheduledAt.Sub(start), want.Sub(start))
		}
		if s.at.Sub(s.it.ScheduledAt) > 50*time.Millisecond {
			late++
		}
	}
	if late > len(as)/50 { // a loaded machine (or -race) delays some; the plan itself never moves
		t.Errorf("%d of %d iterations started more than 50ms after their planned time", late, len(as))
	}
	if last := as[len(as)-1].at.Sub(start); last < 1900*time.Millisecond || last > 2100*time.Millisecond {
		t.Errorf("the last iteration started at %v, want just before 2s", last)
	}
}

// Slow responses do not slow the arrivals: what no VU can take is dropped.
func TestDroppedIterations(t *testing.T) {
	h := newHarness(t, `{"scenarios":{"a":{"executor":"constant-arrival-rate","rate":100,"duration":"500ms",
		"preAllocatedVUs":1,"maxVUs":2,"gracefulStop":"1s"}}}`, options.Flags{},
		func(a vu.Activation, it vu.Iteration) error { return sleepCtx(a.Ctx, 120*time.Millisecond) })
	h.run()
	startedN := len(h.runner.startsOf("a"))
	dropped := h.sink.sum("dropped_iterations")
	if startedN+int(dropped) != 50 {
		t.Errorf("started %d + dropped %v, want 50 due", startedN, dropped)
	}
	if startedN < 6 || startedN > 12 || dropped < 30 {
		t.Errorf("started %d (2 VUs busy 120ms each over 500ms: about 10), dropped %v", startedN, dropped)
	}
	if v, _ := h.sink.tags["dropped_iterations"].Get("scenario"); v != "a" {
		t.Errorf("dropped_iterations tags: %v", h.sink.tags["dropped_iterations"])
	}
	if n := h.runner.newVUs.Load(); n != 2 {
		t.Errorf("VUs: %d, want preAllocatedVUs 1 plus 1 added up to maxVUs", n)
	}
	if h.sink.sum("iterations") != float64(startedN) {
		t.Errorf("iterations %v, started %d", h.sink.sum("iterations"), startedN)
	}
}

func TestRampingArrivalRate(t *testing.T) {
	h := newHarness(t, `{"scenarios":{"a":{"executor":"ramping-arrival-rate","startRate":0,"timeUnit":"100ms",
		"stages":[{"duration":"1s","target":20},{"duration":"500ms","target":20}],"preAllocatedVUs":5}}}`, options.Flags{}, nil)
	start := time.Now()
	h.run()
	as := h.runner.startsOf("a")
	// 0 -> 200/s over 1s is 100 iterations, then 200/s for 0.5s is 100 more.
	if d := int(h.sink.sum("dropped_iterations")); len(as)+d != 200 || d > 2 {
		t.Errorf("started %d, dropped %d; want 200 started", len(as), d)
	}
	firstHalf := 0
	for _, s := range as {
		if s.it.ScheduledAt.Sub(start) < 500*time.Millisecond {
			firstHalf++
		}
	}
	// The rate rises linearly: a quarter of the ramp's 100 iterations are due in its first half.
	if firstHalf < 23 || firstHalf > 27 {
		t.Errorf("%d iterations in the first 500ms, want 25", firstHalf)
	}
}

func TestPauseAndResume(t *testing.T) {
	h := newHarness(t, `{"vus":1,"iterations":3}`, options.Flags{}, nil)
	if err := h.sched.SetPaused(true); err != nil {
		t.Fatal(err)
	}
	if st := h.sched.Status(); !st.Paused || st.Status != StatusPausedBeforeRun || st.VUsMax != 1 {
		t.Errorf("status %+v", st)
	}
	done := make(chan struct{})
	go func() { h.sched.Run(context.Background()); close(done) }()
	time.Sleep(150 * time.Millisecond)
	if n := len(h.runner.startsOf("default")); n != 0 {
		t.Fatalf("%d iterations while paused", n)
	}
	resumedAt := time.Now()
	if err := h.sched.SetPaused(false); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("the test did not run after its resume")
	}
	if h.sink.sum("iterations") != 3 || h.sched.TestStart().Before(resumedAt) {
		t.Errorf("iterations %v, test start %v before the resume", h.sink.sum("iterations"), resumedAt.Sub(h.sched.TestStart()))
	}
}

func TestPauseMidTest(t *testing.T) {
	h := newHarness(t, `{"vus":1,"duration":"600ms"}`, options.Flags{},
		func(a vu.Activation, it vu.Iteration) error { return sleepCtx(a.Ctx, 10*time.Millisecond) })
	go func() {
		time.Sleep(150 * time.Millisecond)
		h.sched.SetPaused(true)
		time.Sleep(300 * time.Millisecond)
		h.sched.SetPaused(false)
	}()
	start := time.Now()
	h.run()
	for _, s := range h.runner.startsOf("default") {
		if at := s.at.Sub(start); at > 180*time.Millisecond && at < 440*time.Millisecond {
			t.Errorf("an iteration started at %v, while paused", at)
		}
	}
}

func TestAbortStopsEverything(t *testing.T) {
	h := newHarness(t, `{"scenarios":{
		"a":{"executor":"constant-vus","vus":2,"duration":"10s"},
		"b":{"executor":"constant-arrival-rate","rate":50,"duration":"10s","preAllocatedVUs":2}}}`, options.Flags{},
		func(a vu.Activation, it vu.Iteration) error {
			if a.Scenario == "a" && it.InInstance == 5 {
				a.State.Abort("enough")
			}
			return sleepCtx(a.Ctx, 20*time.Millisecond)
		})
	took := h.run()
	if took > time.Second {
		t.Errorf("took %v after abort", took)
	}
	if c, r := h.sched.Stopped(); c != StoppedByScript || r != "enough" {
		t.Errorf("stopped %v %q", c, r)
	}
	if !h.sched.Status().Stopped {
		t.Error("status does not say stopped")
	}
}

func TestSegmentsSplitIterations(t *testing.T) {
	seen := map[int64]int{}
	total := 0
	for _, seg := range []string{"0:1/3", "1/3:2/3", "2/3:1"} {
		h := newHarness(t, `{"vus":3,"iterations":7}`,
			options.Flags{ExecutionSegment: seg, ExecutionSegmentSequence: "0,1/3,2/3,1"}, nil)
		h.run()
		for _, s := range h.runner.startsOf("default") {
			seen[s.it.InTest]++
			total++
		}
		if h.runner.newVUs.Load() != 1 {
			t.Errorf("%s: %d VUs, want 1", seg, h.runner.newVUs.Load())
		}
	}
	if total != 7 || len(seen) != 7 {
		t.Errorf("segments ran %d iterations, %d distinct; want 7", total, len(seen))
	}
	for k := range seen {
		if k < 0 || k >= 7 {
			t.Errorf("iterationInTest %d out of range", k)
		}
	}
}

func TestVUIdsInTestAcrossSegments(t *testing.T) {
	ids := map[uint64]bool{}
	for _, seg := range []string{"0:1/4", "1/4:2/4", "2/4:3/4", "3/4:1"} {
		h := newHarness(t, `{"scenarios":{"default":{"executor":"per-vu-iterations","vus":10,"iterations":1}}}`,
			options.Flags{ExecutionSegment: seg, ExecutionSegmentSequence: "0,1/4,2/4,3/4,1"}, nil)
		h.run()
		for _, s := range h.runner.startsOf("default") {
			ids[s.vuID] = true
		}
	}
	if len(ids) != 10 {
		t.Errorf("%d distinct VU ids across segments, want 10: %v", len(ids), ids)
	}
	for id := range ids {
		if id < 1 || id > 10 {
			t.Errorf("VU id %d out of 1..10", id)
		}
	}
}

// Iterations that maxDuration leaves unstarted are dropped (shared- and per-vu-iterations), as k6 documents.
func TestMaxDurationDropsTheRest(t *testing.T) {
	slow := func(a vu.Activation, it vu.Iteration) error { return sleepCtx(a.Ctx, 100*time.Millisecond) }
	for _, sc := range []string{
		`{"scenarios":{"s":{"executor":"shared-iterations","vus":2,"iterations":20,"maxDuration":"250ms","gracefulStop":"0s"}}}`,
		`{"scenarios":{"p":{"executor":"per-vu-iterations","vus":2,"iterations":10,"maxDuration":"250ms","gracefulStop":"0s"}}}`,
	} {
		h := newHarness(t, sc, options.Flags{}, slow)
		h.run()
		done, dropped := h.sink.sum("iterations"), h.sink.sum("dropped_iterations")
		interrupted := float64(h.sched.IterationsInterrupted())
		if done+dropped+interrupted != 20 || dropped < 10 {
			t.Errorf("%s: %v done, %v dropped, %v interrupted; want 20 in all, most dropped", sc, done, dropped, interrupted)
		}
	}
}
