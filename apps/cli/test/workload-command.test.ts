import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileK6Script, iotSpike, workloadSpec } from "@opsbench/core";
import { openTestStack, shortRamp, runOpsbench } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;

const opsbench = runOpsbench;

beforeAll(async () => {
  stack = await openTestStack();
  await stack.scope.workloads.put(shortRamp("wl-ramp"));
});
afterAll(() => stack.close());

describe("opsbench workload", () => {
  it("show NAME --k6 prints the compiled k6 script; show NAME the spec", async () => {
    const stored = workloadSpec.parse((await stack.scope.workloads.byName("wl-ramp")).spec);
    const k6 = await opsbench("workload", "show", "wl-ramp", "--k6");
    expect(k6.code, k6.stderr).toBe(0);
    expect(k6.stdout).toBe(compileK6Script(stored));
    expect(k6.stdout).toContain('"executor": "ramping-vus"');
    const spec = await opsbench("workload", "show", "wl-ramp");
    expect(spec.code).toBe(0);
    expect(JSON.parse(spec.stdout)).toEqual({ name: "wl-ramp", spec: stored });
  });

  it("exits 2 for an unknown workload, naming the known ones; and for bad usage", async () => {
    const r = await opsbench("workload", "show", "nope", "--k6");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown workload "nope"');
    expect(r.stderr).toContain("wl-ramp");
    expect((await opsbench("workload", "show")).code).toBe(2);
    expect((await opsbench("workload", "frob")).code).toBe(2);
    const badPreset = await opsbench("workload", "preset", "iot-nope");
    expect(badPreset.code).toBe(2);
    expect(badPreset.stderr).toContain("known: iot-linear, iot-random, iot-spike, iot-sprint");
    const badScale = await opsbench("workload", "preset", "iot-spike", "--time-scale", "0");
    expect(badScale.code).toBe(2);
    expect(badScale.stderr).toContain("--time-scale must be a number above 0");
    const missing = await opsbench("workload", "preset", "stable-at-percent");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("runId: required");
  });

  it("preset list names every preset with its study", async () => {
    const r = await opsbench("workload", "preset", "list", "--json");
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ name: string; study: string; workloads: number; plannedSeconds: number }>;
    expect(rows.map((x) => x.name)).toEqual([
      "iot-linear",
      "iot-random",
      "iot-spike",
      "iot-sprint",
      "concurrency-sweep",
      "payload-sweep",
      "step-ramp",
      "stable-at-percent",
    ]);
    expect(rows.find((x) => x.name === "iot-spike")).toMatchObject({ study: "000", workloads: 1, plannedSeconds: 1800 });
    expect(rows.find((x) => x.name === "concurrency-sweep")!.workloads).toBe(6);
    const text = await opsbench("workload", "preset", "list");
    expect(text.stdout).toMatch(/^iot-spike\s+study 000\s+30m/m);
  });

  it("preset NAME --time-scale prints the workload; --save stores it, and sweeps as one workload per member", async () => {
    const r = await opsbench("workload", "preset", "iot-spike", "--time-scale", "0.1", "--path", "/?n=100");
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout);
    const expected = iotSpike({ timeScale: 0.1, requests: [{ name: "request", method: "GET", path: "/?n=100" }] });
    expect(printed).toEqual({ name: "iot-spike", spec: expected });

    const saved = await opsbench("workload", "preset", "iot-spike", "--time-scale", "0.1", "--path", "/?n=100", "--save", "spike-3min");
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain("saved workload spike-3min (ramping-vus, 3m, peak 100)");
    expect((await stack.scope.workloads.byName("spike-3min")).spec).toEqual(expected);

    const sweep = await opsbench(
      "workload",
      "preset",
      "concurrency-sweep",
      "--set",
      "levels=[1,5]",
      "--set",
      "duration=10s",
      "--save",
      "fortio",
    );
    expect(sweep.code, sweep.stderr).toBe(0);
    const rows = await stack.db.workload.findMany({ where: { name: { startsWith: "fortio-" } }, orderBy: { name: "asc" } });
    expect(rows.map((w) => [w.name, w.kind, (w.spec as { vus: number }).vus])).toEqual([
      ["fortio-c1", "constant-vus", 1],
      ["fortio-c5", "constant-vus", 5],
    ]);
    const badSet = await opsbench("workload", "preset", "concurrency-sweep", "--set", "levels=[0]");
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toMatch(/levels\.0/);
  });
});
