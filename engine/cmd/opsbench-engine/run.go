package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/opsbench/opsbench/engine/internal/api"
	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/output"
	"github.com/opsbench/opsbench/engine/internal/scheduler"
	"github.com/opsbench/opsbench/engine/internal/summary"
)

// thresholdInterval is how often thresholds are judged while the test runs (abortOnFail).
const thresholdInterval = 2 * time.Second

// run: script -> options -> plan -> outputs -> VUs -> setup -> (resume) -> scenarios -> teardown ->
// thresholds -> summary -> exit code.
func run(c *cli) int {
	l, code := load(c)
	if l == nil {
		return code
	}
	outs, code := startOutputs(c, l)
	if outs == nil && code != exitOK {
		return code
	}
	stopOutputs := sync.OnceFunc(func() {
		for _, o := range outs {
			if err := o.Stop(); err != nil {
				logError(fmt.Sprintf("output: %v", err))
			}
		}
	})
	defer stopOutputs()
	agg := summary.NewAggregator(l.reg, l.ths.Submetrics())
	sinks := []metrics.Sink{agg}
	for _, o := range outs {
		sinks = append(sinks, o)
	}
	l.sink.set(sinks...)

	sched := scheduler.New(scheduler.Config{
		Options: l.opts, Runner: l.runner, Samples: l.sink, Registry: l.reg, Env: l.env, OnWarning: logWarn,
	})
	if c.paused {
		_ = sched.SetPaused(true)
	}
	if c.address != "" {
		srv, err := api.Listen(c.address, sched)
		if err != nil {
			logError(err.Error())
			return exitCannotStartAPI
		}
		defer srv.Close()
	}

	// The first SIGINT/SIGTERM stops the test (teardown and the summary still happen); a second exits at once.
	preRun, cancelPreRun := context.WithCancel(context.Background())
	defer cancelPreRun()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		logWarn(fmt.Sprintf("%v received: stopping the test (teardown and summary follow; a second signal exits at once)", s))
		sched.Stop(scheduler.StoppedBySignal, "stopped by "+s.String())
		cancelPreRun()
		if _, ok := <-sigs; ok {
			logError("second signal: exiting at once")
			os.Exit(exitExternalAbort)
		}
	}()

	// VUs, then setup().
	if err := sched.Init(preRun); err != nil {
		if cause, _ := sched.Stopped(); cause == scheduler.StoppedBySignal {
			return exitExternalAbort
		}
		logError(err.Error())
		return exitScriptException
	}
	sched.SetStatus(scheduler.StatusSetup)
	failure := exitOK // a setup/teardown failure's exit code
	setupCtx, cancelSetup := context.WithTimeout(preRun, l.opts.SetupTimeout())
	setupData, err := l.runner.Setup(setupCtx)
	setupTimedOut := errors.Is(setupCtx.Err(), context.DeadlineExceeded)
	cancelSetup()
	setupOK := false
	switch {
	case err == nil:
		sched.SetSetupData(setupData)
		setupOK = true
	case isAbort(err):
		sched.Abort(abortReason(err), scheduler.StoppedByScript)
	case setupTimedOut:
		logError(fmt.Sprintf("setup() execution timed out after %v (setupTimeout)", l.opts.SetupTimeout()))
		failure = exitSetupTimeout
	case preRun.Err() != nil: // stopped by a signal
	default:
		logError(err.Error())
		failure = exitScriptException
	}

	if setupOK {
		sched.SetStatus(scheduler.StatusStarted)
		stopEval := evaluateWhileRunning(l, agg, sched)
		if err := sched.Run(context.Background()); err != nil {
			logError(err.Error())
			if failure == exitOK {
				failure = exitScriptException
			}
		}
		stopEval()
	}
	sched.SetStatus(scheduler.StatusTeardown)
	var testDuration time.Duration
	if start := sched.TestStart(); !start.IsZero() {
		testDuration = time.Since(start)
	}

	// teardown(), also after a stop; not after a setup() that failed.
	if setupOK || (failure == exitOK && isStoppedByScript(sched)) {
		tctx, cancel := context.WithTimeout(context.Background(), l.opts.TeardownTimeout())
		err := l.runner.Teardown(tctx, setupData)
		timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case err == nil:
		case isAbort(err):
			sched.Abort(abortReason(err), scheduler.StoppedByScript)
		case timedOut:
			logError(fmt.Sprintf("teardown() execution timed out after %v (teardownTimeout)", l.opts.TeardownTimeout()))
			failure = exitTeardownTimeout
		default:
			logError(err.Error())
			if failure == exitOK {
				failure = exitScriptException
			}
		}
	}
	l.ths.Evaluate(agg, testDuration, true)
	sched.SetTainted(l.ths.AnyFailed())
	stopOutputs()
	sched.SetStatus(scheduler.StatusEnded)

	data := summary.Data(agg, l.ths, summary.Options{
		TrendStats: l.opts.SummaryTrendStats(), TimeUnit: l.opts.SummaryTimeUnit(), TestDuration: testDuration,
		NoColor: c.noColor, StdOutTTY: isTerminal(os.Stdout), StdErrTTY: isTerminal(os.Stderr),
	})
	if !c.noSummary {
		writeSummary(l, data)
	}
	if c.summaryExport != "" {
		if b, err := summary.ExportJSON(data); err != nil {
			logError(fmt.Sprintf("--summary-export: %v", err))
		} else if err := os.WriteFile(c.summaryExport, b, 0o644); err != nil {
			logError(fmt.Sprintf("--summary-export: %v", err))
		}
	}
	return exitCode(sched, l, failure)
}

func isStoppedByScript(s *scheduler.Scheduler) bool {
	cause, _ := s.Stopped()
	return cause == scheduler.StoppedByScript
}

// startOutputs opens every --out and starts it with the plan (what the runner checks before any VU exists).
func startOutputs(c *cli, l *loaded) ([]output.Output, int) {
	r := l.opts.Requirements()
	plan := output.Plan{
		SegmentVUs: int(r.SegmentMaxVUs), MaxVUs: int(r.MaxVUs), DurationSeconds: r.TotalDuration.Seconds(),
		PeakArrivalRate: r.PeakArrivalRate, Thresholds: l.ths.Sources(),
	}
	for _, s := range l.opts.Scenarios {
		plan.Scenarios = append(plan.Scenarios, s.Name+":"+s.Executor)
	}
	var outs []output.Output
	fail := func(code int, msg string) ([]output.Output, int) {
		logError(msg)
		for _, o := range outs {
			_ = o.Stop()
		}
		return nil, code
	}
	for _, spec := range c.outs {
		o, err := output.Open(spec, l.env, c.opts.ExecutionSegment)
		if err != nil {
			return fail(exitInvalidConfig, fmt.Sprintf("--out %s: %v", spec, err))
		}
		outs = append(outs, o)
		if err := o.Start(plan); err != nil {
			return fail(exitUsage, fmt.Sprintf("--out %s: %v", spec, err))
		}
	}
	return outs, exitOK
}

// evaluateWhileRunning judges the thresholds every 2 s from the test's start; a crossed threshold with
// abortOnFail (once its delayAbortEval has passed) stops the test. The returned func stops it.
func evaluateWhileRunning(l *loaded, agg *summary.Aggregator, sched *scheduler.Scheduler) func() {
	if len(l.ths.Metrics()) == 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(thresholdInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				start := sched.TestStart()
				if start.IsZero() {
					continue // paused before the start
				}
				abort, reason := l.ths.Evaluate(agg, time.Since(start), false)
				sched.SetTainted(l.ths.AnyFailed())
				if abort {
					logError(reason)
					sched.Abort(reason, scheduler.StoppedByThreshold)
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// writeSummary runs handleSummary (its files, "stdout" and "stderr" included) or prints the default summary.
func writeSummary(l *loaded, data map[string]any) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	files, handled, err := l.runner.HandleSummary(ctx, data)
	if err != nil {
		logError(fmt.Sprintf("handleSummary() failed: %v", err))
		handled = false // as k6: the default summary instead
	}
	if !handled {
		fmt.Fprint(os.Stdout, summary.Text(data))
		return
	}
	if over := summary.FilesOverLimit(files); over != "" {
		logError(over)
		return
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		content := files[p]
		switch p {
		case "stdout":
			fmt.Fprint(os.Stdout, content)
		case "stderr":
			fmt.Fprint(os.Stderr, content)
		default:
			if dir := filepath.Dir(p); dir != "." {
				_ = os.MkdirAll(dir, 0o755)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				logError(fmt.Sprintf("handleSummary(): cannot write %s: %v", p, err))
			}
		}
	}
}

// exitCode: a signal (105), test.abort() (108), a setup/teardown failure (100, 101, 107), crossed
// thresholds (99, also when abortOnFail stopped the test), test.fail() (110), the REST API's stop (103), else 0.
func exitCode(sched *scheduler.Scheduler, l *loaded, failure int) int {
	cause, reason := sched.Stopped()
	switch {
	case cause == scheduler.StoppedBySignal:
		return exitExternalAbort
	case cause == scheduler.StoppedByScript:
		msg := "test aborted"
		if reason != "" {
			msg += ": " + reason
		}
		logError(msg)
		return exitScriptAborted
	case failure != exitOK:
		return failure
	case l.ths.AnyFailed():
		var crossed []string
		for key, res := range l.ths.Results() {
			for _, ok := range res {
				if !ok {
					crossed = append(crossed, key)
					break
				}
			}
		}
		slices.Sort(crossed)
		logError(fmt.Sprintf("thresholds on metrics '%s' have been crossed", strings.Join(crossed, "', '")))
		return exitThresholdsFailed
	}
	if failed, reason := sched.Failed(); failed {
		msg := "the test was marked as failed (exec.test.fail())"
		if reason != "" {
			msg += ": " + reason
		}
		logError(msg)
		return exitMarkedAsFailed
	}
	if cause == scheduler.StoppedByAPI {
		return exitStoppedByAPI
	}
	return exitOK
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
