// Package js runs k6 scripts: it bundles the entry script with its local
// imports (esbuild), compiles the bundle once (sobek) and runs it in one
// runtime per VU, with k6's JavaScript API as its public documentation
// describes it.
package js

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/js/modules"
	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

type Config struct {
	Entry string // path of the entry script; open() resolves relative paths from its folder
	// Root is the folder open() and local imports may read: the working directory when the entry is inside it (a
	// project whose entry imports "../lib/x.js", as k6 run from the project's folder allows), else the entry's folder.
	Root     string
	Env      map[string]string // __ENV
	Registry *metrics.Registry
	Samples  metrics.Sink
}

// Runner runs one k6 script; it implements vu.Runner.
type Runner struct {
	cfg            Config
	root, realRoot string
	base           string // the entry's folder
	program        *sobek.Program
	shared         *modules.Shared
	files          fileCache

	options json.RawMessage // the script's `export const options`
	funcs   map[string]bool // the script's exported functions

	consolidated json.RawMessage
	testTags     *metrics.TagSet

	logMu  sync.Mutex
	logOut io.Writer
	debug  bool
}

var _ vu.Runner = (*Runner)(nil)

// New bundles the script and runs its init code once, with __VU 0, to read its options and exports.
func New(cfg Config) (*Runner, error) {
	if cfg.Registry == nil {
		cfg.Registry = metrics.NewRegistry()
	}
	if cfg.Samples == nil {
		cfg.Samples = metrics.SinkFunc(func([]metrics.Sample) {})
	}
	entry, err := filepath.Abs(cfg.Entry)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(entry); err != nil {
		return nil, &ScriptError{Message: fmt.Sprintf("cannot read the script: %v", err), Err: err}
	} else if fi.IsDir() {
		return nil, &ScriptError{Message: entry + " is a folder, not a script"}
	}
	base := filepath.Dir(entry)
	root := cfg.Root
	if root == "" {
		root = base
		if wd, err := os.Getwd(); err == nil && within(wd, entry) {
			root = wd
		}
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	if !within(root, entry) {
		return nil, &ScriptError{Message: fmt.Sprintf("the script %s is outside its root folder %s", entry, root)}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	prg, err := bundle(entry, root, realRoot)
	if err != nil {
		return nil, err
	}
	r := &Runner{
		cfg: cfg, root: root, realRoot: realRoot, base: base, program: prg,
		shared: &modules.Shared{}, logOut: os.Stderr,
		testTags: metrics.NewTags(nil),
	}
	v, err := r.newVU(context.Background(), 0, 0)
	if err != nil {
		return nil, err
	}
	defer v.close()
	r.funcs = map[string]bool{}
	for _, k := range v.exports.Keys() {
		if _, ok := sobek.AssertFunction(v.exports.Get(k)); ok {
			r.funcs[k] = true
		}
	}
	r.options = json.RawMessage("{}")
	if o := v.exports.Get("options"); o != nil && !sobek.IsUndefined(o) && !sobek.IsNull(o) {
		s, err := v.toJSON(o)
		if err != nil {
			return nil, &ScriptError{Message: "the exported options can't be read as JSON: " + err.Error(), Err: err}
		}
		r.options = json.RawMessage(s)
	}
	return r, nil
}

// SetOptions gives the test's consolidated options (exec.test.options; its
// "tags" tag setup and teardown). Call it before NewVU.
func (r *Runner) SetOptions(consolidated json.RawMessage) error {
	var o struct {
		Tags map[string]any `json:"tags"`
	}
	if len(consolidated) > 0 {
		if err := json.Unmarshal(consolidated, &o); err != nil {
			return fmt.Errorf("consolidated options: %w", err)
		}
	}
	tags := make(map[string]string, len(o.Tags))
	for k, v := range o.Tags {
		tags[k] = fmt.Sprint(v)
	}
	r.consolidated = consolidated
	r.testTags = metrics.NewTags(tags)
	return nil
}

// SetLogOutput sends console output and iteration errors to w (stderr by
// default); debug enables console.debug.
func (r *Runner) SetLogOutput(w io.Writer, debug bool) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	r.logOut, r.debug = w, debug
}

func (r *Runner) Options() json.RawMessage { return r.options }

func (r *Runner) HasExec(name string) bool { return r.funcs[name] }

// NewVU makes a VU: runs the init code with __VU set to idInTest.
func (r *Runner) NewVU(ctx context.Context, idInInstance, idInTest uint64) (vu.VU, error) {
	v, err := r.newVU(ctx, idInInstance, idInTest)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Setup runs setup() on a VU of its own (__VU 0, group "::setup") and returns its result as JSON.
func (r *Runner) Setup(ctx context.Context) (json.RawMessage, error) {
	if !r.funcs["setup"] {
		return json.RawMessage("null"), nil
	}
	v, err := r.newVU(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	defer v.close()
	ret, err := v.callLifecycle(ctx, "setup", "::setup")
	if err != nil {
		return nil, err
	}
	s, err := v.toJSON(ret)
	if err != nil {
		return nil, &ScriptError{Message: "setup() returned data that can't be made JSON: " + err.Error(), Err: err}
	}
	return json.RawMessage(s), nil
}

// Teardown runs teardown(data) on a VU of its own (__VU 0, group "::teardown").
func (r *Runner) Teardown(ctx context.Context, data json.RawMessage) error {
	if !r.funcs["teardown"] {
		return nil
	}
	v, err := r.newVU(ctx, 0, 0)
	if err != nil {
		return err
	}
	defer v.close()
	arg, err := v.fromJSON(data)
	if err != nil {
		return err
	}
	_, err = v.callLifecycle(ctx, "teardown", "::teardown", arg)
	return err
}

// HandleSummary runs handleSummary(data) on a VU of its own and returns the files it asks for.
func (r *Runner) HandleSummary(ctx context.Context, data map[string]any) (map[string]string, bool, error) {
	if !r.funcs["handleSummary"] {
		return nil, false, nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, true, fmt.Errorf("summary data: %w", err)
	}
	v, err := r.newVU(ctx, 0, 0)
	if err != nil {
		return nil, true, err
	}
	defer v.close()
	arg, err := v.fromJSON(raw)
	if err != nil {
		return nil, true, err
	}
	ret, err := v.callLifecycle(ctx, "handleSummary", "", arg)
	if err != nil {
		return nil, true, err
	}
	obj, ok := ret.(*sobek.Object)
	if !ok || sobek.IsNull(ret) {
		return nil, true, &ScriptError{Message: "handleSummary() must return an object of file names (or \"stdout\", \"stderr\") to contents"}
	}
	files := map[string]string{}
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		if buf, ok := val.Export().(sobek.ArrayBuffer); ok {
			files[k] = string(buf.Bytes())
		} else {
			files[k] = val.String()
		}
	}
	return files, true, nil
}

// log writes one logfmt line to the log output.
func (r *Runner) log(level, msg string) {
	r.logLine(level, msg, "")
}

func (r *Runner) logLine(level, msg, source string) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	if level == "debug" && !r.debug {
		return
	}
	line := "level=" + level + " msg=" + strconv.Quote(msg)
	if source != "" {
		line += " source=" + source
	}
	_, _ = io.WriteString(r.logOut, line+"\n")
}

// fileCache holds what open() read, once for all VUs.
type fileCache struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (c *fileCache) read(path string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if data, ok := c.files[path]; ok {
		return data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if c.files == nil {
		c.files = map[string][]byte{}
	}
	c.files[path] = data
	return data, nil
}
