package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/opsbench/opsbench/engine/internal/archive"
	"github.com/opsbench/opsbench/engine/internal/declarative"
	"github.com/opsbench/opsbench/engine/internal/js"
	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/options"
	"github.com/opsbench/opsbench/engine/internal/summary"
	"github.com/opsbench/opsbench/engine/internal/thresholds"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

// workloadRunner is what the engine runs: a k6 script on the JS runtime, or a declarative workload natively.
type workloadRunner interface {
	vu.Runner
	SetOptions(consolidated json.RawMessage) error
}

// lateSink forwards samples to sinks set once they exist (the summary needs the metrics the init code registers).
type lateSink struct {
	to atomic.Pointer[metrics.Fanout]
}

func (l *lateSink) AddSamples(s []metrics.Sample) {
	if f := l.to.Load(); f != nil {
		f.AddSamples(s)
	}
}

func (l *lateSink) set(sinks ...metrics.Sink) {
	f := metrics.Fanout(sinks)
	l.to.Store(&f)
}

// loaded is a script read, its init code run once, and its options consolidated and checked.
type loaded struct {
	runner workloadRunner
	opts   *options.Options
	reg    *metrics.Registry
	ths    *thresholds.Set
	env    map[string]string
	sink   *lateSink
}

// load reads the script and its options; on failure it has logged why and returns the exit code.
func load(c *cli) (*loaded, int) {
	if c.script == "" {
		logError("no script given")
		fmt.Fprintln(os.Stderr, usage)
		return nil, exitUsage
	}
	entry, err := filepath.Abs(c.script)
	if err != nil {
		logError(err.Error())
		return nil, exitScriptException
	}
	l := &loaded{reg: metrics.NewRegistry(), env: processEnv(c), sink: &lateSink{}}
	switch {
	case isDeclarative(entry):
		// A declarative workload (presets, the form): runs natively, no JavaScript per request.
		if l.runner, err = declarative.Load(entry, l.env, l.reg, l.sink); err != nil {
			logError(err.Error())
			return nil, exitInvalidConfig
		}
	case archive.Is(entry):
		// A k6 archive: its files laid out in a folder of their own (removed at exit), then run as a script.
		dir, err := os.MkdirTemp("", "opsbench-archive-")
		if err != nil {
			logError(err.Error())
			return nil, exitScriptException
		}
		atExit(func() { _ = os.RemoveAll(dir) })
		unpacked, err := archive.Unpack(entry, dir)
		if err != nil {
			logError(err.Error())
			return nil, exitScriptException
		}
		if l.runner, err = js.New(js.Config{Entry: unpacked.Entry, Root: unpacked.Root, Env: l.env, Registry: l.reg, Samples: l.sink}); err != nil {
			return nil, initFailed(err)
		}
	default:
		if l.runner, err = js.New(js.Config{Entry: entry, Env: l.env, Registry: l.reg, Samples: l.sink}); err != nil {
			return nil, initFailed(err)
		}
	}
	var config json.RawMessage
	if c.configFile != "" {
		b, err := os.ReadFile(c.configFile)
		if err != nil {
			logError(fmt.Sprintf("cannot read the config file: %v", err))
			return nil, exitInvalidConfig
		}
		if !json.Valid(b) {
			logError(fmt.Sprintf("the config file %s is not JSON", c.configFile))
			return nil, exitInvalidConfig
		}
		config = b
	}
	invalid := func(err error) (*loaded, int) {
		logError(err.Error())
		return nil, exitInvalidConfig
	}
	if l.opts, err = options.Consolidate(l.runner.Options(), config, c.opts); err != nil {
		return invalid(err)
	}
	if err := l.opts.CheckExec(l.runner.HasExec); err != nil {
		return invalid(err)
	}
	if err := summary.ValidateTrendStats(l.opts.SummaryTrendStats()); err != nil {
		return invalid(err)
	}
	if err := summary.ValidateTimeUnit(l.opts.SummaryTimeUnit()); err != nil {
		return invalid(err)
	}
	if l.ths, err = thresholds.Parse(l.opts.Thresholds(), l.reg); err != nil {
		return invalid(err)
	}
	if err := l.runner.SetOptions(l.opts.JSON()); err != nil {
		return invalid(err)
	}
	return l, exitOK
}

// initFailed logs why the script's init code failed: exec.test.abort() there is 108, anything else a script error (107).
func initFailed(err error) int {
	if isAbort(err) {
		logError("test aborted in the init code: " + abortReason(err))
		return exitScriptAborted
	}
	logError(err.Error())
	return exitScriptException
}

// isDeclarative tells a declarative workload (a .json file in opsbench's format) from a script.
func isDeclarative(entry string) bool {
	if !strings.HasSuffix(entry, ".json") {
		return false
	}
	f, err := os.Open(entry)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := f.Read(head)
	return declarative.Sniff(head[:n])
}

// inspect prints the consolidated options; with --execution-requirements also totalDuration and maxVUs.
func inspect(c *cli) int {
	l, code := load(c)
	if l == nil {
		return code
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(l.opts.JSON(), &out); err != nil {
		logError(err.Error())
		return exitInvalidConfig
	}
	if c.executionRequirements {
		req := l.opts.Requirements()
		out["totalDuration"], _ = json.Marshal(options.Duration(req.TotalDuration))
		out["maxVUs"], _ = json.Marshal(req.MaxVUs)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		logError(err.Error())
		return exitInvalidConfig
	}
	return exitOK
}

func isScriptError(err error) bool {
	var se *js.ScriptError
	return errors.As(err, &se)
}

func isAbort(err error) bool {
	var ae *js.AbortError
	return errors.As(err, &ae)
}

func abortReason(err error) string {
	var ae *js.AbortError
	if errors.As(err, &ae) {
		return ae.Reason
	}
	return ""
}
