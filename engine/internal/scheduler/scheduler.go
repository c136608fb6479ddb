// Package scheduler runs a test's scenarios as k6 documents its executors: it
// initialises the VUs before the test, starts each scenario at its startTime,
// activates VUs for it, runs iterations (closed model: VUs loop; open model:
// iterations start by the clock, whatever the responses), stops them with
// gracefulStop / gracefulRampDown, and measures iterations, iteration_duration,
// dropped_iterations, vus and vus_max.
package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/options"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// Status numbers as the REST API shows them (k6's order of a test's phases).
const (
	StatusCreated = iota
	StatusInitVUs
	StatusInitExecutors
	StatusInitDone
	StatusPausedBeforeRun
	StatusStarted
	StatusSetup
	StatusRunning
	StatusTeardown
	StatusEnded
)

// StopCause says why a test stopped before its end.
type StopCause int

const (
	NotStopped StopCause = iota
	// StoppedByScript: exec.test.abort() (exit code 108).
	StoppedByScript
	// StoppedByThreshold: a threshold with abortOnFail (exit code 99).
	StoppedByThreshold
	// StoppedBySignal: SIGINT / SIGTERM (exit code 105).
	StoppedBySignal
	// StoppedByAPI: the REST API (exit code 103).
	StoppedByAPI
)

// Config is what a Scheduler needs.
type Config struct {
	Options *options.Options
	Runner  vu.Runner
	Samples metrics.Sink
	// Registry has the built-in metrics the scheduler measures.
	Registry *metrics.Registry
	// Env is the test's __ENV; each scenario's env goes on top.
	Env map[string]string
	// OnIterationError is told of iterations that ended with an error (they still count as iterations).
	OnIterationError func(scenario string, err error)
	// OnWarning is told of what goes wrong without stopping the test (a VU that could not be added).
	OnWarning func(msg string)
}

// Scheduler runs one test's scenarios; make one with New.
type Scheduler struct {
	cfg       Config
	opts      *options.Options
	optsJSON  json.RawMessage
	striper   *options.Striper
	testTags  *metrics.TagSet
	setupData json.RawMessage

	mu      sync.Mutex
	free    []*vuSlot     // initialised VUs no scenario holds
	resumed chan struct{} // closed while not paused
	paused  bool
	// pausedFlag mirrors paused for the hot path.
	pausedFlag atomic.Bool
	status     int
	tainted    bool
	cause      StopCause
	reason     string
	failed     string // exec.test.fail()\'s reason; failedSet tells it was called
	failedSet  bool
	running    bool
	testStart  time.Time

	created     atomic.Int64 // VUs initialised (vus_max)
	active      atomic.Int64 // VUs activated in a scenario (vus)
	peakActive  atomic.Int64
	completed   atomic.Int64
	interrupted atomic.Int64

	runCtx    context.Context // ends when the test is stopped (abort, signal)
	cancelRun context.CancelFunc
}

type vuSlot struct {
	vu                     vu.VU
	idInInstance, idInTest uint64
}

// New makes a scheduler for the consolidated options.
func New(cfg Config) *Scheduler {
	s := &Scheduler{cfg: cfg, opts: cfg.Options, optsJSON: cfg.Options.JSON(), striper: cfg.Options.Striper,
		testTags: metrics.NewTags(cfg.Options.Tags()), resumed: make(chan struct{}), setupData: json.RawMessage("null")}
	close(s.resumed)
	s.runCtx, s.cancelRun = context.WithCancel(context.Background())
	return s
}

// Init initialises the VUs the plan needs before the test (arrival-rate scenarios at their preAllocatedVUs),
// several at a time. The first error (a script exception in init code) is returned.
func (s *Scheduler) Init(ctx context.Context) error {
	s.SetStatus(StatusInitVUs)
	n := int(s.opts.Requirements().InitialVUs)
	workers := min(max(runtime.GOMAXPROCS(0), 1), max(n, 1))
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				slot, err := s.newVU(ctx)
				if err != nil {
					once.Do(func() { first = err; cancel() })
					continue
				}
				s.mu.Lock()
				s.free = append(s.free, slot)
				s.mu.Unlock()
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	s.SetStatus(StatusInitDone)
	return first
}

func (s *Scheduler) newVU(ctx context.Context) (*vuSlot, error) {
	local := s.created.Add(1)
	global := uint64(s.striper.Global(local-1) + 1)
	v, err := s.cfg.Runner.NewVU(ctx, uint64(local), global)
	if err != nil {
		s.created.Add(-1)
		return nil, err
	}
	return &vuSlot{vu: v, idInInstance: uint64(local), idInTest: global}, nil
}

// acquire takes n VUs from the free ones, initialising more when too few are free.
func (s *Scheduler) acquire(ctx context.Context, n int64) ([]*vuSlot, error) {
	s.mu.Lock()
	take := min(int(n), len(s.free))
	out := make([]*vuSlot, 0, n)
	out = append(out, s.free[len(s.free)-take:]...)
	s.free = s.free[:len(s.free)-take]
	s.mu.Unlock()
	for int64(len(out)) < n {
		slot, err := s.newVU(ctx)
		if err != nil {
			s.release(out)
			return nil, err
		}
		out = append(out, slot)
	}
	return out, nil
}

// acquireOne takes a free VU or initialises one (arrival-rate executors adding VUs during the test).
func (s *Scheduler) acquireOne(ctx context.Context) (*vuSlot, error) {
	slots, err := s.acquire(ctx, 1)
	if err != nil {
		return nil, err
	}
	return slots[0], nil
}

func (s *Scheduler) release(slots []*vuSlot) {
	s.mu.Lock()
	s.free = append(s.free, slots...)
	s.mu.Unlock()
}

// SetSetupData hands setup()'s result to every iteration.
func (s *Scheduler) SetSetupData(data json.RawMessage) {
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	s.setupData = data
}

// Run runs every scenario and returns when all have ended or the test was stopped. A paused test waits for
// its resume first.
func (s *Scheduler) Run(ctx context.Context) error {
	stopWatch := context.AfterFunc(ctx, func() { s.Stop(StoppedBySignal, "the test's context ended") })
	defer stopWatch()
	if !s.waitResumed(s.runCtx, nil) {
		s.SetStatus(StatusEnded)
		return nil
	}
	s.mu.Lock()
	s.testStart = time.Now()
	s.running = true
	s.status = StatusRunning
	s.mu.Unlock()

	tickDone := make(chan struct{})
	var tickWG sync.WaitGroup
	tickWG.Add(1)
	go func() { defer tickWG.Done(); s.emitVUGauges(tickDone) }()

	var wg sync.WaitGroup
	errs := make([]error, len(s.opts.Scenarios))
	for i, sc := range s.opts.Scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.runScenario(sc)
		}()
	}
	wg.Wait()
	close(tickDone)
	tickWG.Wait()
	s.mu.Lock()
	s.running = false
	s.mu.Unlock()
	return errors.Join(errs...)
}

// emitVUGauges measures vus and vus_max once a second while the test runs.
func (s *Scheduler) emitVUGauges(done <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	emit := func(now time.Time, active int64) {
		b := &s.cfg.Registry.Builtin
		s.cfg.Samples.AddSamples([]metrics.Sample{
			{Metric: b.VUs, Time: now, Value: float64(active), Tags: s.testTags},
			{Metric: b.VUsMax, Time: now, Value: float64(s.created.Load()), Tags: s.testTags},
		})
	}
	// The first measure comes once the scenarios have activated their VUs; a test shorter than that is
	// measured at its end with the most VUs it had active.
	first := time.NewTimer(100 * time.Millisecond)
	defer first.Stop()
	emitted := false
	for {
		select {
		case now := <-first.C:
			emit(now, s.active.Load())
			emitted = true
		case now := <-t.C:
			emit(now, s.active.Load())
			emitted = true
		case <-done:
			if !emitted {
				emit(time.Now(), s.peakActive.Load())
			}
			return
		}
	}
}

// Stop ends the test now: running iterations are interrupted. The first cause is kept.
func (s *Scheduler) Stop(cause StopCause, reason string) {
	s.mu.Lock()
	if s.cause == NotStopped {
		s.cause, s.reason = cause, reason
	}
	s.mu.Unlock()
	s.cancelRun()
}

// Abort is exec.test.abort() and a threshold's abortOnFail: see Stop.
func (s *Scheduler) Abort(reason string, cause StopCause) { s.Stop(cause, reason) }

// MarkFailed is exec.test.fail(): the test goes on but ends failed (exit code 110).
func (s *Scheduler) MarkFailed(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.failedSet {
		s.failedSet, s.failed = true, reason
	}
}

// Failed tells whether exec.test.fail() was called, and its first reason.
func (s *Scheduler) Failed() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failedSet, s.failed
}

// Stopped tells why the test was stopped (NotStopped when it ran to its end).
func (s *Scheduler) Stopped() (StopCause, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause, s.reason
}

// SetPaused pauses or resumes the test. A paused test starts no iteration: closed-model VUs wait, and an
// arrival-rate iteration due while paused is dropped (counted in dropped_iterations); durations go on.
func (s *Scheduler) SetPaused(p bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status >= StatusTeardown {
		return fmt.Errorf("the test has already ended")
	}
	if p == s.paused {
		return nil
	}
	s.paused = p
	s.pausedFlag.Store(p)
	if p {
		s.resumed = make(chan struct{})
	} else {
		close(s.resumed)
	}
	return nil
}

func (s *Scheduler) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// waitResumed waits while the test is paused; false when ctx ended or stop was closed first.
func (s *Scheduler) waitResumed(ctx context.Context, stop <-chan struct{}) bool {
	s.mu.Lock()
	ch := s.resumed
	s.mu.Unlock()
	select {
	case <-ch:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	}
}

// SetStatus records the test's phase (the run pipeline sets setup, teardown and ended).
func (s *Scheduler) SetStatus(st int) {
	s.mu.Lock()
	s.status = st
	s.mu.Unlock()
}

// SetTainted records that a threshold has failed (the REST API shows it).
func (s *Scheduler) SetTainted(t bool) {
	s.mu.Lock()
	s.tainted = t
	s.mu.Unlock()
}

// Status is the test's state as the REST API shows it.
type Status struct {
	Status                   int
	Paused, Running, Stopped bool
	Tainted                  bool
	VUs, VUsMax              int64
}

func (s *Scheduler) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	if s.paused && st < StatusRunning {
		st = StatusPausedBeforeRun
	}
	return Status{Status: st, Paused: s.paused, Running: s.running, Stopped: s.cause != NotStopped,
		Tainted: s.tainted, VUs: s.active.Load(), VUsMax: s.created.Load()}
}

// TestStart is when the scenarios started (zero before).
func (s *Scheduler) TestStart() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.testStart
}

// activated counts a VU activated in a scenario; the returned func counts its end.
func (s *Scheduler) activated() func() {
	n := s.active.Add(1)
	for {
		p := s.peakActive.Load()
		if n <= p || s.peakActive.CompareAndSwap(p, n) {
			break
		}
	}
	return func() { s.active.Add(-1) }
}

// IterationsCompleted and IterationsInterrupted count this instance's iterations.
func (s *Scheduler) IterationsCompleted() int64   { return s.completed.Load() }
func (s *Scheduler) IterationsInterrupted() int64 { return s.interrupted.Load() }

func (s *Scheduler) warn(format string, a ...any) {
	if s.cfg.OnWarning != nil {
		s.cfg.OnWarning(fmt.Sprintf(format, a...))
	}
}

// scenarioEnv is the test's env with the scenario's on top.
func (s *Scheduler) scenarioEnv(sc *options.Scenario) map[string]string {
	env := make(map[string]string, len(s.cfg.Env)+len(sc.Env))
	maps.Copy(env, s.cfg.Env)
	maps.Copy(env, sc.Env)
	return env
}
