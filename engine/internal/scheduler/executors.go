package scheduler

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/options"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// scenarioRun is one scenario while it runs.
type scenarioRun struct {
	s        *Scheduler
	sc       *options.Scenario
	part     options.Part
	actTags  *metrics.TagSet // the test's tags, the scenario's, and scenario=<name>
	iterTags *metrics.TagSet // the same with group="" (the iteration metrics are the root group's)
	env      map[string]string
	start    time.Time
	// hard ends at start + duration + gracefulStop (or when the test stops): running iterations are interrupted.
	hard   context.Context
	cancel context.CancelFunc
	// soft is closed at start + duration: no new iteration starts.
	soft  chan struct{}
	next  atomic.Int64 // the instance's next iteration number in this scenario
	done  atomic.Int64 // completed iterations of this scenario
	state *execState
}

func (s *Scheduler) runScenario(sc *options.Scenario) error {
	testStart := s.TestStart()
	if sc.StartTime > 0 {
		t := time.NewTimer(time.Until(testStart.Add(sc.StartTime)))
		select {
		case <-t.C:
		case <-s.runCtx.Done():
			t.Stop()
			return nil
		}
	}
	tags := s.testTags.Map()
	maps.Copy(tags, sc.Tags)
	tags["scenario"] = sc.Name
	r := &scenarioRun{s: s, sc: sc, part: s.opts.Part(sc), actTags: metrics.NewTags(tags), env: s.scenarioEnv(sc),
		start: time.Now(), soft: make(chan struct{})}
	r.iterTags = r.actTags.With(map[string]string{"group": ""})
	r.state = &execState{r: r}
	r.hard, r.cancel = context.WithDeadline(s.runCtx, r.start.Add(sc.RunDuration()+sc.GracefulStop))
	defer r.cancel()
	softTimer := time.AfterFunc(sc.RunDuration(), func() { close(r.soft) })
	defer softTimer.Stop()

	switch sc.Executor {
	case options.ConstantVUs:
		return r.runClosed(r.part.VUs, func(int) func() (vu.Iteration, bool) {
			return func() (vu.Iteration, bool) { return r.newIteration(), true }
		})
	case options.SharedIterations:
		err := r.runClosed(r.part.VUs, func(int) func() (vu.Iteration, bool) {
			return func() (vu.Iteration, bool) {
				c := r.next.Add(1) - 1
				if c >= r.part.Iterations {
					return vu.Iteration{}, false
				}
				return vu.Iteration{InInstance: c, InTest: s.striper.Global(c)}, true
			}
		})
		// Iterations never started when maxDuration ran out are dropped, as k6 documents.
		r.droppedN(r.part.Iterations - min(r.next.Load(), r.part.Iterations))
		return err
	case options.PerVUIterations:
		started := make([]int64, r.part.VUs)
		err := r.runClosed(r.part.VUs, func(i int) func() (vu.Iteration, bool) {
			return func() (vu.Iteration, bool) {
				if started[i] >= r.part.Iterations {
					return vu.Iteration{}, false
				}
				started[i]++
				return r.newIteration(), true
			}
		})
		for _, n := range started {
			r.droppedN(r.part.Iterations - n)
		}
		return err
	case options.RampingVUs:
		return r.runRampingVUs()
	case options.ConstantArrivalRate, options.RampingArrivalRate:
		return r.runArrivalRate()
	}
	return fmt.Errorf("scenario %q: unsupported executor %q", sc.Name, sc.Executor)
}

// newIteration numbers the scenario's next iteration on this instance and in the whole test.
func (r *scenarioRun) newIteration() vu.Iteration {
	c := r.next.Add(1) - 1
	return vu.Iteration{InInstance: c, InTest: r.s.striper.Global(c)}
}

func (r *scenarioRun) activate(slot *vuSlot, ctx context.Context) vu.ActiveVU {
	return slot.vu.Activate(vu.Activation{
		Ctx: ctx, Scenario: r.sc.Name, Executor: r.sc.Executor, Exec: r.sc.Exec, Env: r.env,
		Tags: r.actTags, SetupData: r.s.setupData, State: r.state,
	})
}

// iterate runs one iteration; false when it was interrupted (ctx ended first), which does not count as completed.
func (r *scenarioRun) iterate(active vu.ActiveVU, ctx context.Context, it vu.Iteration) bool {
	start := time.Now()
	err := active.RunIteration(it)
	if ctx.Err() != nil {
		r.s.interrupted.Add(1)
		return false
	}
	end := time.Now()
	r.s.completed.Add(1)
	r.done.Add(1)
	if err != nil && r.s.cfg.OnIterationError != nil {
		r.s.cfg.OnIterationError(r.sc.Name, err)
	}
	b := &r.s.cfg.Registry.Builtin
	r.s.cfg.Samples.AddSamples([]metrics.Sample{
		{Metric: b.IterationDuration, Time: end, Value: float64(end.Sub(start)) / float64(time.Millisecond), Tags: r.iterTags},
		{Metric: b.Iterations, Time: end, Value: 1, Tags: r.iterTags},
	})
	return true
}

func (r *scenarioRun) dropped() { r.droppedN(1) }

// droppedN counts n iterations that were due but never started (none: nothing is written).
func (r *scenarioRun) droppedN(n int64) {
	if n <= 0 {
		return
	}
	r.s.cfg.Samples.AddSamples([]metrics.Sample{
		{Metric: r.s.cfg.Registry.Builtin.DroppedIterations, Time: time.Now(), Value: float64(n), Tags: r.iterTags},
	})
}

// loop is a closed-model VU: it runs iterations one after the other until stop is closed, ctx ends or next has none.
func (r *scenarioRun) loop(slot *vuSlot, ctx context.Context, stop <-chan struct{}, next func() (vu.Iteration, bool)) {
	active := r.activate(slot, ctx)
	defer r.s.activated()()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		if r.s.pausedFlag.Load() && !r.s.waitResumed(ctx, stop) {
			return
		}
		it, ok := next()
		if !ok || !r.iterate(active, ctx, it) {
			return
		}
	}
}

// runClosed runs n VUs until the scenario's soft end (or until their iterations run out).
func (r *scenarioRun) runClosed(n int64, nextFor func(vuIndex int) func() (vu.Iteration, bool)) error {
	slots, err := r.s.acquire(r.hard, n)
	if err != nil {
		return fmt.Errorf("scenario %q: %w", r.sc.Name, err)
	}
	defer r.s.release(slots)
	// No iteration starts after the soft end, by the clock as well as by r.soft: on a starved machine a VU that wakes
	// from its iteration may run before the soft timer's goroutine has closed r.soft (seen: 3 iterations of a 150 ms
	// iteration in a 100 ms scenario of 2 VUs).
	softEnd := r.start.Add(r.sc.RunDuration())
	var wg sync.WaitGroup
	for i, slot := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := nextFor(i)
			r.loop(slot, r.hard, r.soft, func() (vu.Iteration, bool) {
				if !time.Now().Before(softEnd) {
					return vu.Iteration{}, false
				}
				return next()
			})
		}()
	}
	wg.Wait()
	return nil
}

// sleepUntil waits for the moment; false when ctx ended first.
func sleepUntil(ctx context.Context, t *time.Timer, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t.Reset(d)
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		t.Stop()
		return false
	}
}

// runRampingVUs follows the stages: VUs are started as the count rises; as it falls, the VUs started last stop
// after their iteration, which they get gracefulRampDown to finish. At the end of the stages every VU stops
// after its iteration, with gracefulStop to finish it.
func (r *scenarioRun) runRampingVUs() error {
	slots, err := r.s.acquire(r.hard, r.part.PeakVUs)
	if err != nil {
		return fmt.Errorf("scenario %q: %w", r.sc.Name, err)
	}
	type handle struct {
		stop   chan struct{}
		cancel context.CancelFunc
	}
	var (
		mu      sync.Mutex
		idle    = slots
		owned   = slots
		running []*handle
		wg      sync.WaitGroup
	)
	defer func() { r.s.release(owned) }()
	startOne := func() error {
		mu.Lock()
		var slot *vuSlot
		if n := len(idle); n > 0 {
			slot, idle = idle[n-1], idle[:n-1]
		}
		mu.Unlock()
		if slot == nil { // every VU of the scenario is still finishing a ramped-down iteration
			var err error
			if slot, err = r.s.acquireOne(r.hard); err != nil {
				return err
			}
			mu.Lock()
			owned = append(owned, slot)
			mu.Unlock()
		}
		ctx, cancel := context.WithCancel(r.hard)
		h := &handle{stop: make(chan struct{}), cancel: cancel}
		running = append(running, h)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			r.loop(slot, ctx, h.stop, func() (vu.Iteration, bool) { return r.newIteration(), true })
			mu.Lock()
			idle = append(idle, slot)
			mu.Unlock()
		}()
		return nil
	}
	adjust := func(n int64) {
		for int64(len(running)) < n {
			if err := startOne(); err != nil {
				r.s.warn("scenario %q: could not start a VU: %v", r.sc.Name, err)
				break
			}
		}
		for int64(len(running)) > n {
			h := running[len(running)-1]
			running = running[:len(running)-1]
			close(h.stop)
			time.AfterFunc(r.sc.GracefulRampDown, h.cancel)
		}
	}
	target := func(at time.Duration) int64 { return r.s.striper.Scale(r.sc.RampingVUsAt(at)) }

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	at := time.Duration(0)
	adjust(target(0))
	for {
		next, ok := r.sc.NextRampingChange(at)
		if !ok || !sleepUntil(r.hard, timer, r.start.Add(next)) {
			break
		}
		at = next
		adjust(target(at))
	}
	sleepUntil(r.hard, timer, r.start.Add(r.sc.StagesDuration()))
	for _, h := range running {
		close(h.stop)
	}
	wg.Wait()
	return nil
}

// runArrivalRate starts iterations by the clock (k6's open model): iteration k of the whole test is due at its
// planned time whatever the earlier ones are doing. It goes to a free VU; with none free, a VU is added (up to
// maxVUs) to run it; with none to add, it is dropped (dropped_iterations).
func (r *scenarioRun) runArrivalRate() error {
	slots, err := r.s.acquire(r.hard, r.part.PreAllocatedVUs)
	if err != nil {
		return fmt.Errorf("scenario %q: %w", r.sc.Name, err)
	}
	var (
		mu    sync.Mutex
		owned = slots
		wg    sync.WaitGroup
		held  atomic.Int64              // VUs the scenario has or is adding
		idle  atomic.Int64              // VUs about to wait or waiting for work
		work  = make(chan vu.Iteration) // unbuffered: a send succeeds only when a VU is waiting for work
	)
	held.Store(int64(len(slots)))
	defer func() { r.s.release(owned) }()
	var ready sync.WaitGroup // the pre-allocated VUs are activated before the first iteration is due
	worker := func(slot *vuSlot, first *vu.Iteration) {
		defer wg.Done()
		active := r.activate(slot, r.hard)
		defer r.s.activated()()
		if first != nil && !r.iterate(active, r.hard, *first) {
			return
		}
		idle.Add(1)
		defer idle.Add(-1)
		if first == nil {
			ready.Done()
		}
		for {
			select {
			case it := <-work:
				idle.Add(-1)
				ok := r.iterate(active, r.hard, it)
				idle.Add(1)
				if !ok {
					return
				}
			case <-r.soft:
				return
			case <-r.hard.Done():
				return
			}
		}
	}
	for _, slot := range slots {
		wg.Add(1)
		ready.Add(1)
		go worker(slot, nil)
	}
	ready.Wait()
	sch := r.sc.Schedule()
	timer, grace := time.NewTimer(time.Hour), time.NewTimer(time.Hour)
	timer.Stop()
	grace.Stop()
	for c := int64(0); ; c++ {
		k := r.s.striper.Global(c)
		off, ok := sch.Offset(k)
		if !ok {
			break
		}
		due := r.start.Add(off)
		if !sleepUntil(r.hard, timer, due) {
			break
		}
		it := vu.Iteration{InInstance: c, InTest: k, ScheduledAt: due}
		if r.s.pausedFlag.Load() {
			r.dropped()
			continue
		}
		select {
		case work <- it:
			continue
		default:
		}
		// A VU that has just finished is about to wait for work: worth a moment's wait, not a new VU or a drop.
		if idle.Load() > 0 {
			grace.Reset(time.Millisecond)
			select {
			case work <- it:
				grace.Stop()
				continue
			case <-grace.C:
			case <-r.hard.Done():
				continue
			}
		}
		if held.Load() < r.part.MaxVUs {
			held.Add(1)
			wg.Add(1)
			go func() {
				slot, err := r.s.acquireOne(r.hard)
				if err != nil {
					held.Add(-1)
					wg.Done()
					if r.hard.Err() == nil {
						r.s.warn("scenario %q: could not add a VU: %v", r.sc.Name, err)
						r.dropped()
					}
					return
				}
				mu.Lock()
				owned = append(owned, slot)
				mu.Unlock()
				worker(slot, &it)
			}()
			continue
		}
		r.dropped()
	}
	wg.Wait()
	return nil
}

// progress is k6/execution's scenario.progress.
func (r *scenarioRun) progress() float64 {
	var p float64
	switch r.sc.Executor {
	case options.SharedIterations:
		p = float64(r.done.Load()) / float64(max(r.part.Iterations, 1))
	case options.PerVUIterations:
		p = float64(r.done.Load()) / float64(max(r.part.Iterations*r.part.VUs, 1))
	default:
		p = float64(time.Since(r.start)) / float64(max(r.sc.RunDuration(), 1))
	}
	return min(max(p, 0), 1)
}
