// Package vu is the contract between the scheduler (which decides when and in
// which scenario an iteration runs) and a workload runner (which runs it: a k6
// script on the JS runtime, or a declarative workload natively).
//
// Lifecycle, as k6 documents it: the runner's init code runs once per VU when
// the VU is made (all VUs are made before the test starts, arrival-rate
// executors may add more up to maxVUs); setup() runs once before the first
// iteration and its result is handed to every iteration and to teardown(); a VU
// is activated for one scenario at a time and runs its exec function once per
// iteration; teardown() runs once after the last; handleSummary() at the end.
package vu

import (
	"context"
	"encoding/json"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

// Runner runs one workload.
type Runner interface {
	// Options are the workload's own options (k6's `export const options`) as JSON, before the command line's.
	Options() json.RawMessage
	// NewVU makes a VU: runs the init code with __VU set to idInTest.
	NewVU(ctx context.Context, idInInstance, idInTest uint64) (VU, error)
	// Setup runs setup() (if any) and returns its data as JSON ("null" when there is none).
	Setup(ctx context.Context) (json.RawMessage, error)
	// Teardown runs teardown(data), if any.
	Teardown(ctx context.Context, data json.RawMessage) error
	// HasExec tells whether the workload has an exported function of that name (scenarios' exec).
	HasExec(name string) bool
	// HandleSummary runs handleSummary(data) if the script exports it: the files to write (path or "stdout"/"stderr"
	// to their content), and handled=false when the script has none (the engine then writes its default summary).
	HandleSummary(ctx context.Context, data map[string]any) (files map[string]string, handled bool, err error)
}

// VU is one virtual user. Its methods are called from one goroutine at a time.
type VU interface {
	// Activate readies the VU for a scenario; the returned ActiveVU runs its iterations.
	Activate(p Activation) ActiveVU
}

// Activation is what a VU knows of the scenario it serves (k6's exec.scenario, exec.vu, __ENV, tags).
type Activation struct {
	// Ctx ends when the VU must stop (the scenario's end plus gracefulStop, or the test's abort).
	Ctx      context.Context
	Scenario string
	Executor string
	// Exec is the function to call per iteration ("default" unless the scenario names one).
	Exec string
	// Env is the scenario's env on top of the test's (__ENV).
	Env map[string]string
	// Tags are the scenario's tags on top of the test's, with "scenario" set.
	Tags *metrics.TagSet
	// SetupData is setup()'s result as JSON.
	SetupData json.RawMessage
	// State answers k6/execution's questions about the test and the scenario.
	State ExecutionState
}

// ActiveVU runs one iteration per call. An iteration that ends with an error
// (an exception, fail()) still counts as an iteration; the error is reported
// (logged) and the VU goes on, as in k6.
type ActiveVU interface {
	RunIteration(it Iteration) error
}

// Iteration says which iteration this is.
type Iteration struct {
	// InInstance / InTest: k6/execution's scenario.iterationInInstance / iterationInTest.
	InInstance, InTest int64
	// ScheduledAt is when an arrival-rate executor planned it (zero for closed-model executors).
	ScheduledAt time.Time
}

// ExecutionState answers what k6/execution exposes about the running test.
type ExecutionState interface {
	// ScenarioStart is when the scenario started.
	ScenarioStart() time.Time
	// ScenarioProgress is 0..1.
	ScenarioProgress() float64
	// VUsActive and VUsInitialized are instance-wide.
	VUsActive() int64
	VUsInitialized() int64
	// IterationsCompleted and IterationsInterrupted are instance-wide.
	IterationsCompleted() int64
	IterationsInterrupted() int64
	// TestStart is when the test started (after setup).
	TestStart() time.Time
	// Abort stops the whole test (exec.test.abort()): exit code 108.
	Abort(reason string)
	// Options are the test's consolidated options as JSON (exec.test.options).
	Options() json.RawMessage
}
