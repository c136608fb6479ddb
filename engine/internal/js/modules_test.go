package js

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/opsbench/opsbench/engine/internal/metrics"
	"github.com/opsbench/opsbench/engine/internal/vu"
)

func tag(s metrics.Sample, k string) string {
	v, _ := s.Tags.Get(k)
	return v
}

func TestCheckAndGroupTags(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import { check, group } from "k6";
export default function () {
  const top = check(5, { "is five": (v) => v === 5, "is six": (v) => v === 6, "truthy value": 1 });
  const inner = group("outer", function () {
    return group("inner", function () {
      return check(null, { "deep": () => true }, { extra: "yes" });
    });
  });
  check(top, { "top was false": (v) => v === false, "inner was true": () => inner === true });
}`}, nil)
	if errs := h.run(1, "", 2); errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	checks := h.samples.of("checks")
	if len(checks) != 12 {
		t.Fatalf("%d check samples", len(checks))
	}
	byName := map[string]metrics.Sample{}
	for _, s := range checks[:6] {
		byName[tag(s, "check")] = s
	}
	for name, want := range map[string]struct {
		value float64
		group string
	}{
		"is five": {1, ""}, "is six": {0, ""}, "truthy value": {1, ""},
		"deep": {1, "::outer::inner"}, "top was false": {1, ""}, "inner was true": {1, ""},
	} {
		s, ok := byName[name]
		if !ok {
			t.Fatalf("no sample for check %q", name)
		}
		if s.Value != want.value || tag(s, "group") != want.group || tag(s, "scenario") != "default" {
			t.Errorf("check %q: value %v tags %v", name, s.Value, s.Tags)
		}
	}
	if tag(byName["deep"], "extra") != "yes" || tag(byName["is five"], "extra") != "" {
		t.Errorf("extra tags: %v / %v", byName["deep"].Tags, byName["is five"].Tags)
	}
	// Both iterations share their TagSets (built once, reused).
	if checks[0].Tags != checks[6].Tags {
		t.Errorf("check TagSets are rebuilt every iteration")
	}
	groups := h.samples.of("group_duration")
	if len(groups) != 4 || tag(groups[0], "group") != "::outer::inner" || tag(groups[1], "group") != "::outer" {
		t.Fatalf("group_duration samples: %v", groups)
	}
}

func TestCheckAndGroupErrors(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import { check, group } from "k6";
import { Counter } from "k6/metrics";
const after = new Counter("after");
export function throwing() { check(1, { "throws": () => { throw new Error("in check"); } }); }
export function badGroup() { group("a::b", () => {}); }
export function asyncGroup() { group("g", async () => {}); }
export function restored() {
  try { group("g", () => { throw new Error("x"); }); } catch (e) {}
  after.add(1);
}
let initCheck; try { check(1, { a: true }); } catch (e) { initCheck = String(e); }
export const options = { initCheck };
export default function () {}`}, nil)
	if !strings.Contains(string(h.runner.Options()), "init context") {
		t.Errorf("check in init: %s", h.runner.Options())
	}
	for exec, want := range map[string]string{"throwing": "in check", "badGroup": `must not contain "::"`, "asyncGroup": "async"} {
		if errs := h.run(1, exec, 1); errs[0] == nil || !strings.Contains(errs[0].Error(), want) {
			t.Errorf("%s: %v", exec, errs[0])
		}
	}
	h.run(1, "restored", 1)
	if s := h.samples.of("after"); len(s) != 1 || tag(s[0], "group") != "" {
		t.Fatalf("group not restored after an exception: %v", s)
	}
}

func TestCustomMetrics(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import { Counter, Gauge, Rate, Trend } from "k6/metrics";
const c = new Counter("my_counter"), g = new Gauge("my_gauge"), r = new Rate("my_rate");
const tr = new Trend("my_trend", true), plain = new Trend("plain_trend");
let dup; try { new Gauge("my_counter"); } catch (e) { dup = String(e); }
let bad; try { new Counter("1bad"); } catch (e) { bad = String(e); }
export const options = { dup, bad };
export function late() { new Counter("late"); }
export default function () {
  c.add(2, { k: "v" }); c.add(true);
  g.add(7);
  r.add(true); r.add(0); r.add(5); r.add(false);
  tr.add(12.5); plain.add(3);
  c.add("nope");
}`}, nil)
	var o struct{ Dup, Bad string }
	_ = json.Unmarshal(h.runner.Options(), &o)
	if !strings.Contains(o.Dup, "already exists") || !strings.Contains(o.Bad, "invalid metric name") {
		t.Fatalf("options = %s", h.runner.Options())
	}
	if errs := h.run(1, "", 1); errs[0] != nil {
		t.Fatal(errs[0])
	}
	reg := h.runner.cfg.Registry
	if m := reg.Lookup("my_trend"); m == nil || m.Type != metrics.Trend || m.Contains != metrics.Time {
		t.Fatalf("my_trend = %+v", m)
	}
	if m := reg.Lookup("plain_trend"); m.Contains != metrics.Default {
		t.Fatalf("plain_trend = %+v", m)
	}
	cs := h.samples.of("my_counter")
	if len(cs) != 2 || cs[0].Value != 2 || tag(cs[0], "k") != "v" || cs[1].Value != 1 || tag(cs[1], "k") != "" || tag(cs[1], "group") != "" {
		t.Fatalf("counter samples %v", cs)
	}
	var rates []float64
	for _, s := range h.samples.of("my_rate") {
		rates = append(rates, s.Value)
	}
	if len(rates) != 4 || rates[0] != 1 || rates[1] != 0 || rates[2] != 1 || rates[3] != 0 {
		t.Fatalf("rates %v", rates)
	}
	if s := h.samples.of("my_trend"); len(s) != 1 || s[0].Value != 12.5 {
		t.Fatalf("trend %v", s)
	}
	if !strings.Contains(h.log.String(), "not a number") {
		t.Fatalf("NaN not warned:\n%s", h.log)
	}
	if errs := h.run(1, "late", 1); errs[0] == nil || !strings.Contains(errs[0].Error(), "init context") {
		t.Fatalf("constructor outside init: %v", errs[0])
	}
}

func TestSharedArray(t *testing.T) {
	h := newHarness(t, map[string]string{
		"users.json": `[{"name":"a"},{"name":"b"},{"name":"c"}]`,
		"script.js": `
import { SharedArray } from "k6/data";
import { Counter } from "k6/metrics";
const built = new Counter("built");
let calls = 0;
const users = new SharedArray("users", function () { calls++; return JSON.parse(open("./users.json")); });
export const options = { calls };
export function late() { new SharedArray("x", () => []); }
export default function () {
  const names = [];
  for (const u of users) names.push(u.name);
  users[0].name = "changed"; // a copy: nobody else sees it
  let threw = false; try { users[0] = 1; } catch (e) { threw = true; }
  built.add(calls, { names: names.join(","), len: String(users.length), first: users[0].name, threw: String(threw), idx: String(users[5]) });
}`,
	}, nil)
	if string(h.runner.Options()) != `{"calls":1}` {
		t.Fatalf("options = %s", h.runner.Options())
	}
	var wg sync.WaitGroup
	for id := uint64(1); id <= 4; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := h.newVU(id).Activate(h.activation(context.Background(), ""))
			if err := a.RunIteration(vu.Iteration{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got := h.samples.of("built")
	if len(got) != 4 {
		t.Fatalf("%d samples", len(got))
	}
	for _, s := range got {
		// calls is 0 in every VU: the function ran once, in the options-reading VU.
		if s.Value != 0 || tag(s, "names") != "a,b,c" || tag(s, "len") != "3" || tag(s, "first") != "a" || tag(s, "threw") != "true" || tag(s, "idx") != "undefined" {
			t.Fatalf("sample %v %v", s.Value, s.Tags)
		}
	}
	if errs := h.run(9, "late", 1); errs[0] == nil || !strings.Contains(errs[0].Error(), "init context") {
		t.Fatalf("late SharedArray: %v", errs[0])
	}
}

func TestEncodingAndCrypto(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import encoding from "k6/encoding";
import crypto from "k6/crypto";
import { b64encode } from "k6/encoding";
function bytes(buf) { return Array.from(new Uint8Array(buf)).join(","); }
const buf = new Uint8Array([104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100]).buffer;
const hasher = crypto.createHash("sha256"); hasher.update("hello "); hasher.update("world!");
const hm = crypto.createHMAC("sha256", "a secret"); hm.update("my "); hm.update("data");
let md4; try { crypto.md4("x", "hex"); } catch (e) { md4 = String(e); }
let ripe; try { crypto.hmac("ripemd160", "k", "x", "hex"); } catch (e) { ripe = String(e); }
export const options = {
  enc: encoding.b64encode("hello world"), encBuf: b64encode(buf), url: encoding.b64encode("\xff\xfe?", "rawurl"),
  dec: encoding.b64decode("aGVsbG8gd29ybGQ=", "std", "s"), decBin: bytes(encoding.b64decode("aGk=")),
  sha256: crypto.sha256("hello world!", "hex"), sha256buf: crypto.sha256(new Uint8Array([104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100, 33]).buffer, "hex"),
  md5: crypto.md5("hello world!", "hex"), sha1: crypto.sha1("hello world!", "base64"),
  sha512_256: crypto.sha512_256("hello world!", "hex"),
  hasher: hasher.digest("hex"), hasher64: hasher.digest("base64rawurl"), hasherBin: new Uint8Array(hasher.digest("binary")).length,
  hmac: crypto.hmac("sha256", "mysecret", "hello world!", "hex"), createHMAC: hm.digest("hex"),
  rnd: crypto.randomBytes(42).byteLength, md4, ripe,
  uuid: globalThis.crypto.randomUUID(),
};
export default function () {}`}, nil)
	var o map[string]any
	if err := json.Unmarshal(h.runner.Options(), &o); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"enc": "aGVsbG8gd29ybGQ=", "encBuf": "aGVsbG8gd29ybGQ=", "url": "w7_Dvj8",
		"dec": "hello world", "decBin": "104,105",
		"sha256":     "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9",
		"sha256buf":  "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9",
		"md5":        "fc3ff98e8c6a0d3087d515c0473f8677",
		"sha1":       "QwzjTQIHJO11oZbfwq1nx3dy0Wk=",
		"sha512_256": "595b5926068b4828fb1c27db21281e31118b8475cb6c3ceeb09be7b685414d5f",
		"hasher":     "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9",
		"hasher64":   "dQnlvaDHYtK6x_kNdYtbImP6Acy8VCq1498WO-CObKk", "hasherBin": 32.0,
		"hmac":       "893a72d8cab129e5ba85aea4599fd53f59bfe652cff4098a3780313228d8c20f",
		"createHMAC": "82f669c8fde13aef6d6977257588dc4953dfac505428f8fd6b52e19cd96d7ea5",
		"rnd":        42.0,
	} {
		if o[k] != want {
			t.Errorf("%s = %v, want %v", k, o[k], want)
		}
	}
	for _, k := range []string{"md4", "ripe"} {
		if s, _ := o[k].(string); !strings.Contains(s, "not supported by opsbench-engine") {
			t.Errorf("%s: %q", k, s)
		}
	}
	if s, _ := o["uuid"].(string); len(s) != 36 || s[14] != '4' {
		t.Errorf("uuid %q", s)
	}
}

func TestUnsupportedFunctionInIteration(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import crypto from "k6/crypto";
export default function () { crypto.ripemd160("x", "hex"); }`}, nil)
	errs := h.run(1, "", 1)
	var ue *UnsupportedError
	if !errors.As(errs[0], &ue) || !strings.Contains(ue.Error(), "crypto.ripemd160()") {
		t.Fatalf("err = %v", errs[0])
	}
}

func TestExecution(t *testing.T) {
	h := newHarness(t, map[string]string{"script.js": `
import exec from "k6/execution";
import { Counter } from "k6/metrics";
const c = new Counter("info");
let scenarioInInit; try { exec.scenario.name; } catch (e) { scenarioInInit = String(e); }
export const options = { scenarioInInit, vuInInit: exec.vu.idInTest };
export function tagging() {
  exec.vu.tags.mine = "t" + exec.vu.iterationInScenario;
  exec.vu.metrics.tags.num = 5;
  exec.vu.tags.obj = { no: 1 };
  c.add(1);
  delete exec.vu.tags.num;
  c.add(2, { scenarioTag: exec.vu.tags.scenario });
}
export function failing() { exec.test.fail("marked"); }
export default function () {
  c.add(1, {
    name: exec.scenario.name, executor: exec.scenario.executor,
    iterInInstance: String(exec.scenario.iterationInInstance), iterInTest: String(exec.scenario.iterationInTest),
    vuIter: String(exec.vu.iterationInInstance), vuScenIter: String(exec.vu.iterationInScenario),
    idInInstance: String(exec.vu.idInInstance), idInTest: String(exec.vu.idInTest),
    progress: String(exec.scenario.progress), startOK: String(exec.scenario.startTime > 0 && exec.scenario.startTime <= Date.now()),
    active: String(exec.instance.vusActive), inited: String(exec.instance.vusInitialized),
    completed: String(exec.instance.iterationsCompleted), interrupted: String(exec.instance.iterationsInterrupted),
    durOK: String(exec.instance.currentTestRunDuration >= 1000),
    opt: exec.test.options.tags.a,
  });
}`}, nil)
	var o struct {
		ScenarioInInit string
		VuInInit       int
	}
	_ = json.Unmarshal(h.runner.Options(), &o)
	if !strings.Contains(o.ScenarioInInit, "only available while a scenario runs") {
		t.Errorf("scenario in init: %q", o.ScenarioInInit)
	}
	if err := h.runner.SetOptions(json.RawMessage(`{"tags":{"a":"b"}}`)); err != nil {
		t.Fatal(err)
	}
	v, err := h.runner.NewVU(context.Background(), 2, 12)
	if err != nil {
		t.Fatal(err)
	}
	a := v.Activate(h.activation(context.Background(), ""))
	for i := range 2 {
		if err := a.RunIteration(vu.Iteration{InInstance: int64(5 + i), InTest: int64(50 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	s := h.samples.of("info")
	if len(s) != 2 {
		t.Fatalf("%d samples", len(s))
	}
	for k, want := range map[string]string{
		"name": "default", "executor": "shared-iterations", "iterInInstance": "6", "iterInTest": "51",
		"vuIter": "1", "vuScenIter": "1", "idInInstance": "2", "idInTest": "12", "progress": "0.25", "startOK": "true",
		"active": "3", "inited": "4", "completed": "10", "interrupted": "1", "durOK": "true", "opt": "b",
	} {
		if got := tag(s[1], k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}

	a = v.Activate(h.activation(context.Background(), "tagging"))
	for range 2 {
		if err := a.RunIteration(vu.Iteration{}); err != nil {
			t.Fatal(err)
		}
	}
	s = h.samples.of("info")[2:]
	// The same scenario: exec.vu.iterationInScenario goes on from 2.
	if tag(s[0], "mine") != "t2" || tag(s[0], "num") != "5" || tag(s[0], "obj") != "" {
		t.Errorf("vu tags: %v", s[0].Tags)
	}
	if _, ok := s[1].Tags.Get("num"); ok || tag(s[1], "scenarioTag") != "default" || tag(s[1], "mine") != "t2" {
		t.Errorf("after delete: %v", s[1].Tags)
	}
	if tag(s[2], "mine") != "t3" {
		t.Errorf("second iteration: %v", s[2].Tags)
	}
	if !strings.Contains(h.log.String(), "must be a string, number or boolean") {
		t.Errorf("object tag not warned:\n%s", h.log)
	}
	// Another scenario starts without the script's tags.
	act := h.activation(context.Background(), "")
	act.Scenario = "other"
	v.Activate(act).RunIteration(vu.Iteration{})
	if all := h.samples.of("info"); tag(all[len(all)-1], "mine") != "" {
		t.Errorf("vu tags leaked into another scenario")
	}

	if errs := h.run(3, "failing", 1); errs[0] != nil || len(h.state.failed) != 1 || h.state.failed[0] != "marked" {
		t.Fatalf("test.fail: %v %v", errs[0], h.state.failed)
	}
}
