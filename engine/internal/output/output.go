// Package output streams a test's samples out while it runs (k6's --out):
// "opsbench" (opsbench's own per-second aggregate format, to a pipe, a file or
// opsbench's ingest endpoint) and "json" (k6's documented JSON lines).
package output

import (
	"fmt"
	"strings"

	"github.com/opsbench/opsbench/engine/internal/metrics"
)

// Plan is what the engine is about to run, written before any VU exists (the opsbench "plan" line):
// the most VUs of this instance's execution segment and of the whole test, how long the test plans to
// run (graceful stops included), the highest iterations per second an arrival-rate scenario starts,
// the scenarios ("name:executor") and the thresholds as written (metric key -> expressions).
type Plan struct {
	SegmentVUs, MaxVUs               int
	DurationSeconds, PeakArrivalRate float64
	Scenarios                        []string
	Thresholds                       map[string][]string
}

// Output is a metrics.Sink started before the test and stopped after it (Stop writes what is left).
type Output interface {
	metrics.Sink
	Start(p Plan) error
	Stop() error
}

// Open makes the output a --out argument names: "opsbench=fd:3" (a pipe the parent process gave the
// engine), "opsbench=FILE", "opsbench=https://host/api/v1/runs/<id>/ingest" (with the run's token in
// env K6_OPSBENCH_TOKEN or OPSBENCH_INGEST_TOKEN), or "json=FILE" (FILE.gz is gzipped). segment is the
// execution segment, sent to the ingest endpoint.
func Open(spec string, env map[string]string, segment string) (Output, error) {
	kind, dest, _ := strings.Cut(strings.TrimSpace(spec), "=")
	dest = strings.TrimSpace(dest)
	switch kind {
	case "opsbench":
		return openOpsbench(dest, env, segment)
	case "json":
		return openJSON(dest)
	}
	return nil, fmt.Errorf("unknown output %q: the engine writes opsbench=<fd:N|FILE|https://.../ingest> and json=FILE", kind)
}
