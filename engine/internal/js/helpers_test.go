package js

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// writeFiles writes name -> content under a new folder and returns the folder.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type collector struct {
	mu      sync.Mutex
	samples []metrics.Sample
}

func (c *collector) AddSamples(s []metrics.Sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.samples = append(c.samples, s...)
}

func (c *collector) of(name string) []metrics.Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []metrics.Sample
	for _, s := range c.samples {
		if s.Metric.Name == name {
			out = append(out, s)
		}
	}
	return out
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type fakeState struct {
	mu      sync.Mutex
	aborted []string
	failed  []string
	start   time.Time
}

func (f *fakeState) ScenarioStart() time.Time     { return f.start }
func (f *fakeState) ScenarioProgress() float64    { return 0.25 }
func (f *fakeState) VUsActive() int64             { return 3 }
func (f *fakeState) VUsInitialized() int64        { return 4 }
func (f *fakeState) IterationsCompleted() int64   { return 10 }
func (f *fakeState) IterationsInterrupted() int64 { return 1 }
func (f *fakeState) TestStart() time.Time         { return f.start }
func (f *fakeState) Options() json.RawMessage     { return json.RawMessage(`{"from":"state"}`) }
func (f *fakeState) Abort(reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.aborted = append(f.aborted, reason)
}
func (f *fakeState) Fail(reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = append(f.failed, reason)
}

type harness struct {
	t       *testing.T
	dir     string
	runner  *Runner
	samples *collector
	log     *syncBuffer
	state   *fakeState
}

// newHarness writes the files and makes a Runner of "script.js".
func newHarness(t *testing.T, files map[string]string, env map[string]string) *harness {
	t.Helper()
	h, err := tryHarness(t, files, env)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return h
}

func tryHarness(t *testing.T, files map[string]string, env map[string]string) (*harness, error) {
	t.Helper()
	dir := writeFiles(t, files)
	h := &harness{t: t, dir: dir, samples: &collector{}, log: &syncBuffer{}, state: &fakeState{start: time.Now().Add(-time.Second)}}
	r, err := New(Config{Entry: filepath.Join(dir, "script.js"), Env: env, Registry: metrics.NewRegistry(), Samples: h.samples})
	if err != nil {
		return nil, err
	}
	r.SetLogOutput(h.log, true)
	h.runner = r
	return h, nil
}

func (h *harness) newVU(id uint64) vu.VU {
	h.t.Helper()
	v, err := h.runner.NewVU(context.Background(), id, id)
	if err != nil {
		h.t.Fatalf("NewVU: %v", err)
	}
	return v
}

func (h *harness) activation(ctx context.Context, exec string) vu.Activation {
	return vu.Activation{
		Ctx: ctx, Scenario: "default", Executor: "shared-iterations", Exec: exec,
		Tags: metrics.NewTags(map[string]string{"scenario": "default"}), SetupData: json.RawMessage("null"),
		State: h.state,
	}
}

// run activates a new VU for the default scenario and runs n iterations, returning their errors.
func (h *harness) run(id uint64, exec string, n int) []error {
	h.t.Helper()
	a := h.newVU(id).Activate(h.activation(context.Background(), exec))
	var errs []error
	for i := range n {
		errs = append(errs, a.RunIteration(vu.Iteration{InInstance: int64(i), InTest: int64(i)}))
	}
	return errs
}
