package js

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opsbench/opsbench/engine/internal/vu"
)

func TestBundleLocalImportAndOptions(t *testing.T) {
	h := newHarness(t, map[string]string{
		"lib/helper.js": `export function twice(x) { return x * 2; }
export const name = "helper";`,
		"script.js": `import { twice, name } from "./lib/helper.js";
import { sleep } from "k6";
export const options = { vus: twice(2), tags: { from: name } };
export function other() {}
export default function () { sleep(0); }`,
	}, nil)
	var opts map[string]any
	if err := json.Unmarshal(h.runner.Options(), &opts); err != nil {
		t.Fatal(err)
	}
	if opts["vus"] != 4.0 || opts["tags"].(map[string]any)["from"] != "helper" {
		t.Fatalf("options = %s", h.runner.Options())
	}
	for name, want := range map[string]bool{"default": true, "other": true, "options": false, "setup": false} {
		if got := h.runner.HasExec(name); got != want {
			t.Errorf("HasExec(%q) = %v, want %v", name, got, want)
		}
	}
	if errs := h.run(1, "", 2); errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
}

func TestTypeScriptEntry(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"script.ts": `const n: number = 3; export const options = { vus: n }; export default function (): void {}`,
	})
	r, err := New(Config{Entry: filepath.Join(dir, "script.ts")})
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Options()) != `{"vus":3}` {
		t.Fatalf("options = %s", r.Options())
	}
}

func TestRefusedImports(t *testing.T) {
	outside := writeFiles(t, map[string]string{"evil.js": `export const x = 1;`})
	for name, tc := range map[string]struct {
		script, want string
		unsupported  bool
	}{
		"grpc":        {`import grpc from "k6/net/grpc"; export default function () {}`, `the module "k6/net/grpc" is not supported by opsbench-engine (supported: k6, `, true},
		"browser":     {`import { browser } from "k6/browser"; export default function () {}`, `"k6/browser" is not supported`, true},
		"extension":   {`import x from "k6/x/kafka"; export default function () {}`, `"k6/x/kafka" is not supported`, true},
		"remote":      {`import { a } from "https://jslib.k6.io/k6-utils/1.2.0/index.js"; export default function () {}`, `the remote module "https://jslib.k6.io/k6-utils/1.2.0/index.js" is not supported`, true},
		"escape":      {`import { x } from "../evil.js"; export default function () {}`, "is outside the script's folder", false},
		"absolute":    {`import { x } from "` + filepath.Join(outside, "evil.js") + `"; export default function () {}`, "is outside the script's folder", false},
		"bare":        {`import _ from "lodash"; export default function () {}`, `cannot import "lodash"`, false},
		"missing":     {`import { x } from "./nope.js"; export default function () {}`, "no such file", false},
		"syntax":      {"export default function () {\n  let x = ;\n}", "script.js:2:", false},
		"init throws": {"const a = 1;\nthrow new Error('boom in init');\nexport default function () {}", "boom in init", false},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tryHarness(t, map[string]string{"script.js": tc.script}, nil)
			if err == nil {
				t.Fatal("New succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *ScriptError", err)
			}
			var ue *UnsupportedError
			if got := errors.As(err, &ue); got != tc.unsupported {
				t.Fatalf("errors.As UnsupportedError = %v, want %v", got, tc.unsupported)
			}
		})
	}
}

func TestInitExceptionNamesFileAndLine(t *testing.T) {
	_, err := tryHarness(t, map[string]string{
		"lib.js":    "export function f() {\n  throw new Error('deep');\n}",
		"script.js": "import { f } from './lib.js';\nf();\nexport default function () {}",
	}, nil)
	var se *ScriptError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	if se.Message != "Error: deep" || !strings.Contains(se.Stack, "lib.js:2:") || !strings.Contains(se.Stack, "script.js:2:") {
		t.Fatalf("message %q stack %q", se.Message, se.Stack)
	}
}

func TestOpen(t *testing.T) {
	outside := writeFiles(t, map[string]string{"secret.txt": "no"})
	h := newHarness(t, map[string]string{
		"data/users.json": `[{"name":"a"},{"name":"b"}]`,
		"bin.dat":         "\x00\x01\x02",
		"script.js": `
const users = JSON.parse(open("./data/users.json"));
const bin = new Uint8Array(open("bin.dat", "b"));
function tryOpen(p) { try { open(p); return "opened"; } catch (e) { return String(e); } }
export const options = {
  n: users.length, second: users[1].name, bin: Array.from(bin),
  escape: tryOpen("../secret.txt"),
  abs: tryOpen("` + filepath.Join(outside, "secret.txt") + `"),
  missing: tryOpen("./nope.txt"),
};
export default function () { open("./data/users.json"); }`,
	}, nil)
	var o struct {
		N                    int
		Second               string
		Bin                  []int
		Escape, Abs, Missing string
	}
	if err := json.Unmarshal(h.runner.Options(), &o); err != nil {
		t.Fatal(err)
	}
	if o.N != 2 || o.Second != "b" || len(o.Bin) != 3 || o.Bin[2] != 2 {
		t.Fatalf("options = %s", h.runner.Options())
	}
	for what, msg := range map[string]string{"escape": o.Escape, "abs": o.Abs} {
		if !strings.Contains(msg, "outside the script's folder") {
			t.Errorf("%s: %q", what, msg)
		}
	}
	if !strings.Contains(o.Missing, "no such file") {
		t.Errorf("missing: %q", o.Missing)
	}
	// Outside the init context open() throws.
	errs := h.run(1, "", 1)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "init context") {
		t.Fatalf("open in an iteration: %v", errs[0])
	}
}

func TestOpenRefusesSymlinkOut(t *testing.T) {
	outside := writeFiles(t, map[string]string{"secret.txt": "no"})
	dir := writeFiles(t, map[string]string{"script.js": `
let r; try { open("./link/secret.txt"); r = "opened"; } catch (e) { r = String(e); }
export const options = { r };
export default function () {}`})
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	r, err := New(Config{Entry: filepath.Join(dir, "script.js")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Options()), "leads outside the script's folder") {
		t.Fatalf("options = %s", r.Options())
	}
}

func TestEnvVUIter(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import { Counter } from "k6/metrics";
const seen = new Counter("seen");
const initVU = __VU;
export default function () {
  seen.add(1, { vu: String(__VU), initvu: String(initVU), iter: String(__ITER), env: __ENV.MODE, extra: String(__ENV.EXTRA) });
}`}, map[string]string{"MODE": "base"})
	v := h.newVU(7)
	act := h.activation(context.Background(), "")
	a := v.Activate(act)
	for i := range 2 {
		if err := a.RunIteration(vu.Iteration{InInstance: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	act.Scenario, act.Env = "second", map[string]string{"EXTRA": "x", "MODE": "scen"}
	a = v.Activate(act)
	if err := a.RunIteration(vu.Iteration{}); err != nil {
		t.Fatal(err)
	}
	got := h.samples.of("seen")
	if len(got) != 3 {
		t.Fatalf("%d samples", len(got))
	}
	want := []map[string]string{
		{"vu": "7", "initvu": "7", "iter": "0", "env": "base", "extra": "undefined"},
		{"vu": "7", "initvu": "7", "iter": "1", "env": "base", "extra": "undefined"},
		{"vu": "7", "initvu": "7", "iter": "0", "env": "scen", "extra": "x"}, // __ITER counts per scenario
	}
	for i, s := range got {
		for k, w := range want[i] {
			if g, _ := s.Tags.Get(k); g != w {
				t.Errorf("sample %d: tag %s = %q, want %q", i, k, g, w)
			}
		}
	}
}

func TestOptionsRunHasVU0(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `export const options = { vu: __VU }; export default function () {}`}, nil)
	if string(h.runner.Options()) != `{"vu":0}` {
		t.Fatalf("options = %s", h.runner.Options())
	}
}

func TestSetupDataTeardown(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import { check } from "k6";
import { Counter } from "k6/metrics";
const got = new Counter("got");
export function setup() { check(1, { "in setup": (v) => v === 1 }); return { v: 1, list: [1, 2], vu: __VU }; }
export default function (data) {
  got.add(data.v + data.list.length, { setupvu: String(data.vu) });
  data.v = 100; // each VU has its own copy
}
export function teardown(data) {
  if (data.v !== 1) throw new Error("teardown got " + JSON.stringify(data));
  got.add(1000);
}`}, nil)
	if err := h.runner.SetOptions(json.RawMessage(`{"tags":{"testid":"t1"}}`)); err != nil {
		t.Fatal(err)
	}
	data, err := h.runner.Setup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"v":1,"list":[1,2],"vu":0}` {
		t.Fatalf("setup data %s", data)
	}
	checks := h.samples.of("checks")
	if len(checks) != 1 {
		t.Fatalf("%d checks", len(checks))
	}
	if g, _ := checks[0].Tags.Get("group"); g != "::setup" {
		t.Errorf("setup group = %q", g)
	}
	if id, _ := checks[0].Tags.Get("testid"); id != "t1" {
		t.Errorf("setup lacks the test's tags: %v", checks[0].Tags)
	}
	for id := uint64(1); id <= 2; id++ {
		v := h.newVU(id)
		act := h.activation(context.Background(), "")
		act.SetupData = data
		a := v.Activate(act)
		for range 2 {
			if err := a.RunIteration(vu.Iteration{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := h.samples.of("got")
	if len(got) != 4 || got[0].Value != 3 || got[1].Value != 102 || got[2].Value != 3 {
		t.Fatalf("got %v", got)
	}
	if err := h.runner.Teardown(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	if got := h.samples.of("got"); len(got) != 5 || got[4].Value != 1000 {
		t.Fatalf("teardown did not run")
	}
	if err := h.runner.Teardown(context.Background(), json.RawMessage(`{"v":2}`)); err == nil || !strings.Contains(err.Error(), "teardown got") {
		t.Fatalf("teardown error = %v", err)
	}
}

func TestNoSetup(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `export default function (d) { if (d !== null) throw new Error("data " + d); }`}, nil)
	data, err := h.runner.Setup(context.Background())
	if err != nil || string(data) != "null" {
		t.Fatalf("%s %v", data, err)
	}
	if err := h.runner.Teardown(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	if errs := h.run(1, "", 1); errs[0] != nil {
		t.Fatal(errs[0])
	}
}

func TestHandleSummary(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
export default function () {}
export function handleSummary(data) {
  return {
    stdout: "reqs=" + data.metrics.http_reqs.values.count + "\n",
    "out/summary.json": JSON.stringify(data),
    "bin.dat": new Uint8Array([104, 105]).buffer,
  };
}`}, nil)
	data := map[string]any{"metrics": map[string]any{"http_reqs": map[string]any{"values": map[string]any{"count": 42}}}}
	files, handled, err := h.runner.HandleSummary(context.Background(), data)
	if err != nil || !handled {
		t.Fatal(handled, err)
	}
	if files["stdout"] != "reqs=42\n" || files["bin.dat"] != "hi" || !strings.Contains(files["out/summary.json"], `"count":42`) {
		t.Fatalf("files = %q", files)
	}

	h2 := newHarness(t, map[string]string{"script.js": `export default function () {}`}, nil)
	if _, handled, err := h2.runner.HandleSummary(context.Background(), data); handled || err != nil {
		t.Fatal(handled, err)
	}
}

func TestIterationExceptionKeepsVU(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import { fail } from "k6";
import { Counter } from "k6/metrics";
const c = new Counter("reached");
export default function () {
  c.add(1);
  if (__ITER === 0) throw new Error("first fails");
  if (__ITER === 1) fail("second fails");
  if (__ITER === 2) null.x;
}`}, nil)
	errs := h.run(1, "", 4)
	for i, want := range []string{"Error: first fails", "Error: second fails", "TypeError"} {
		var se *ScriptError
		if !errors.As(errs[i], &se) || !strings.Contains(se.Message, want) {
			t.Errorf("iteration %d: %v", i, errs[i])
		}
	}
	if errs[3] != nil {
		t.Fatalf("the VU did not recover: %v", errs[3])
	}
	if n := len(h.samples.of("reached")); n != 4 {
		t.Fatalf("%d iterations ran", n)
	}
	log := h.log.String()
	if !strings.Contains(log, `level=error msg="Error: first fails\n\tat script_default (script.js:7:`) || !strings.Contains(log, "source=stacktrace") {
		t.Fatalf("log:\n%s", log)
	}
}

func TestInterruptedIteration(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import { sleep } from "k6";
export function spin() { for (;;) {} }
export function nap() { sleep(60); }
export default function () {}`}, nil)
	for _, exec := range []string{"spin", "nap"} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		a := h.newVU(1).Activate(h.activation(ctx, exec))
		start := time.Now()
		err := a.RunIteration(vu.Iteration{})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: err = %v", exec, err)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("%s: not interrupted in time", exec)
		}
	}
	if strings.Contains(h.log.String(), "level=error") {
		t.Fatalf("an interruption was logged as an error:\n%s", h.log)
	}
	// The same VU runs again once reactivated.
	v := h.newVU(2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := v.Activate(h.activation(ctx, "")).RunIteration(vu.Iteration{}); err == nil {
		t.Fatal("an iteration ran on an ended context")
	}
	if err := v.Activate(h.activation(context.Background(), "")).RunIteration(vu.Iteration{}); err != nil {
		t.Fatalf("reactivated VU: %v", err)
	}
}

func TestMissingExec(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `export default function () {}`}, nil)
	errs := h.run(1, "nope", 1)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), `"nope"`) {
		t.Fatal(errs[0])
	}
}

func TestConsole(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
console.log("init", 1, { a: [1, "x"] });
export default function () { console.warn("careful"); console.error(new Error("bad")); console.debug("dbg"); }`}, nil)
	h.run(1, "", 1)
	log := h.log.String()
	for _, want := range []string{
		`level=info msg="init 1 {\"a\":[1,\"x\"]}" source=console`,
		`level=warning msg="careful" source=console`,
		`level=error msg="Error: bad" source=console`,
		`level=debug msg="dbg" source=console`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
}

func TestAsyncAndTimers(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import { Counter } from "k6/metrics";
import { setTimeout as st } from "k6/timers";
const c = new Counter("ticks");
export default async function () {
  await new Promise((resolve) => setTimeout(resolve, 10));
  c.add(1, { step: "awaited" });
  let n = 0;
  const id = setInterval(() => { c.add(1, { step: "interval" }); if (++n === 3) clearInterval(id); }, 1);
  st(() => c.add(1, { step: "timeout" }), 5);
}
export async function rejects() { await null; throw new Error("async boom"); }
export function unhandled() { Promise.reject(new Error("nobody listens")); }`}, nil)
	if errs := h.run(1, "", 1); errs[0] != nil {
		t.Fatal(errs[0])
	}
	steps := map[string]int{}
	for _, s := range h.samples.of("ticks") {
		step, _ := s.Tags.Get("step")
		steps[step]++
	}
	if steps["awaited"] != 1 || steps["interval"] != 3 || steps["timeout"] != 1 {
		t.Fatalf("steps = %v", steps)
	}
	if errs := h.run(2, "rejects", 1); errs[0] == nil || !strings.Contains(errs[0].Error(), "async boom") {
		t.Fatalf("rejects: %v", errs[0])
	}
	if errs := h.run(3, "unhandled", 1); errs[0] == nil || !strings.Contains(errs[0].Error(), "Uncaught (in promise) Error: nobody listens") {
		t.Fatalf("unhandled: %v", errs[0])
	}
}

func TestAbort(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import exec from "k6/execution";
export default function () { try { exec.test.abort("enough"); } catch (e) {} throw new Error("not reached"); }`}, nil)
	errs := h.run(1, "", 1)
	var ae *AbortError
	if !errors.As(errs[0], &ae) || ae.Reason != "enough" {
		t.Fatalf("err = %v", errs[0])
	}
	if len(h.state.aborted) != 1 || h.state.aborted[0] != "enough" {
		t.Fatalf("state aborted = %v", h.state.aborted)
	}

	_, err := tryHarness(t, map[string]string{"script.js": `import exec from "k6/execution"; exec.test.abort("in init"); export default function () {}`}, nil)
	if !errors.As(err, &ae) || ae.Reason != "in init" {
		t.Fatalf("init abort: %v", err)
	}
}

func TestCommonJSScript(t *testing.T) {
	h := newHarness(t, map[string]string{
		"helper.js": `module.exports = { k: 3 };`,
		"script.js": `const { k } = require("./helper.js");
const { check } = require("k6");
module.exports.options = { k };
module.exports.default = function () { check(k, { "k is 3": (v) => v === 3 }); };`,
	}, nil)
	if string(h.runner.Options()) != `{"k":3}` || !h.runner.HasExec("default") {
		t.Fatalf("options %s", h.runner.Options())
	}
	if errs := h.run(1, "", 1); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if c := h.samples.of("checks"); len(c) != 1 || c[0].Value != 1 {
		t.Fatalf("checks %v", c)
	}
}

func TestEndlessIntervalIsInterrupted(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `export default function () { setInterval(() => {}, 5); }`}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	v := h.newVU(1)
	err := v.Activate(h.activation(ctx, "")).RunIteration(vu.Iteration{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if !v.(*jsVU).state.Loop.Idle() {
		t.Fatal("the interrupted iteration left its interval behind")
	}
}

// A project whose entry sits in a subfolder imports and opens files beside that folder when the root is the
// project's folder (k6 run from the project); outside the root stays refused.
func TestRootAboveTheEntry(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"lib/paths.js":   `export function pathFor(u) { return "/users/" + u; }`,
		"data/users.csv": "name\nana\nbo\n",
		"short/test.js": `import { pathFor } from "../lib/paths.js";
const rows = open("../data/users.csv").split("\n");
export const options = { tags: { first: pathFor(rows[1]) } };
export default function () {}`,
	})
	r, err := New(Config{Entry: filepath.Join(dir, "short/test.js"), Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	var opts struct{ Tags map[string]string }
	if err := json.Unmarshal(r.Options(), &opts); err != nil || opts.Tags["first"] != "/users/ana" {
		t.Fatalf("options = %s (%v)", r.Options(), err)
	}
	if _, err := New(Config{Entry: filepath.Join(dir, "short/test.js"), Root: filepath.Join(dir, "short")}); err == nil ||
		!strings.Contains(err.Error(), "outside the script's folder") {
		t.Fatalf("the entry's folder as the root must refuse ../lib: %v", err)
	}
}
