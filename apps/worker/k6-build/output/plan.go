package output

// The "plan" line: what k6 is about to run, as k6 itself derived it for this test run (its options after the
// script's init code ran with the run's own environment, and the execution plan k6 will follow). It is written
// before any VU is initialised, so the runner can compare it with the run's limits and with what `k6 inspect`
// said, and stop a script that told inspect one thing and k6 run another (docs/security.md).

import (
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"go.k6.io/k6/lib"
	"go.k6.io/k6/lib/executor"
	"go.k6.io/k6/metrics"
)

// defaultMaxThreads bounds k6's OS threads (Go's default is 10,000): k6 runs VUs as goroutines on a few threads, so
// only a script blocking many threads at once would need more. K6_OPSBENCH_MAX_THREADS overrides it.
const defaultMaxThreads = 2000

func init() {
	n := defaultMaxThreads
	if v, err := strconv.Atoi(os.Getenv("K6_OPSBENCH_MAX_THREADS")); err == nil && v > 0 {
		n = v
	}
	debug.SetMaxThreads(n)
}

// planLine summarises the test k6 is about to run: the most VUs (planned and those arrival-rate executors may add)
// of the whole test and of this instance's execution segment, how long it plans to run (graceful stops included),
// and the highest iterations per second an arrival-rate scenario starts (per second, whole test).
func planLine(opts lib.Options, segmentPlan []lib.ExecutionStep) map[string]any {
	line := map[string]any{
		"t":          "plan",
		"segmentVUs": lib.GetMaxPossibleVUs(segmentPlan),
	}
	whole := segmentPlan
	if et, err := lib.NewExecutionTuple(nil, nil); err == nil {
		whole = opts.Scenarios.GetFullExecutionRequirements(et)
	}
	line["maxVUs"] = lib.GetMaxPossibleVUs(whole)
	end, _ := lib.GetEndOffset(whole)
	line["durationSeconds"] = end.Seconds()
	line["peakArrivalRate"] = peakArrivalRate(opts.Scenarios)
	scenarios := make([]string, 0, len(opts.Scenarios))
	for name, sc := range opts.Scenarios {
		if len(scenarios) >= 20 {
			break
		}
		if len(name) > 100 {
			name = name[:100]
		}
		scenarios = append(scenarios, name+":"+sc.GetType())
	}
	line["scenarios"] = scenarios
	line["thresholds"] = thresholdSources(opts.Thresholds)
	return line
}

// thresholdSources lists the script's thresholds as written ("http_req_duration{expected_response:true}" ->
// ["p(95)<500"]), so a run fed by several k6 processes can evaluate them on the merged result: each k6 judges
// only its own execution segment (packages/core k6/k6-merged-thresholds.ts).
func thresholdSources(all map[string]metrics.Thresholds) map[string][]string {
	out := make(map[string][]string, len(all))
	for metric, ts := range all {
		if len(out) >= 100 {
			break
		}
		sources := make([]string, 0, len(ts.Thresholds))
		for _, t := range ts.Thresholds {
			if len(sources) < 20 && len(t.Source) <= 200 {
				sources = append(sources, t.Source)
			}
		}
		out[metric] = sources
	}
	return out
}

func perSecond(n int64, unit time.Duration) float64 {
	if unit <= 0 {
		unit = time.Second
	}
	return float64(n) / unit.Seconds()
}

func peakArrivalRate(scs lib.ScenarioConfigs) float64 {
	peak := 0.0
	for _, sc := range scs {
		switch c := sc.(type) {
		case *executor.ConstantArrivalRateConfig:
			peak = max(peak, perSecond(c.Rate.Int64, c.TimeUnit.TimeDuration()))
		case *executor.RampingArrivalRateConfig:
			peak = max(peak, rampingPeak(c))
		}
	}
	return peak
}

func rampingPeak(c *executor.RampingArrivalRateConfig) float64 {
	top := c.StartRate.Int64
	for _, s := range c.Stages {
		top = max(top, s.Target.Int64)
	}
	return perSecond(top, c.TimeUnit.TimeDuration())
}
