package scheduler

import (
	"encoding/json"
	"time"

	"github.com/opsbench/opsbench/engine/internal/vu"
)

// execState answers k6/execution for the VUs of one scenario.
type execState struct{ r *scenarioRun }

var _ vu.ExecutionState = (*execState)(nil)

func (e *execState) ScenarioStart() time.Time     { return e.r.start }
func (e *execState) ScenarioProgress() float64    { return e.r.progress() }
func (e *execState) VUsActive() int64             { return e.r.s.active.Load() }
func (e *execState) VUsInitialized() int64        { return e.r.s.created.Load() }
func (e *execState) IterationsCompleted() int64   { return e.r.s.completed.Load() }
func (e *execState) IterationsInterrupted() int64 { return e.r.s.interrupted.Load() }
func (e *execState) TestStart() time.Time         { return e.r.s.TestStart() }
func (e *execState) Options() json.RawMessage     { return e.r.s.optsJSON }

// Abort is exec.test.abort(): the whole test stops (exit code 108).
func (e *execState) Abort(reason string) { e.r.s.Abort(reason, StoppedByScript) }

// Fail is exec.test.fail(): the test goes on and ends failed (exit code 110).
func (e *execState) Fail(reason string) { e.r.s.MarkFailed(reason) }
