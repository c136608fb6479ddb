import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, shortRamp, taewaTarget, runOpsbench } from "../../../tests/helpers";

const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-study-"));
let stack: Awaited<ReturnType<typeof openTestStack>>;

const opsbench = runOpsbench;

const studyFile = (name: string, content: unknown) => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
};

const counts = async () => ({
  studies: await stack.db.study.count(),
  runs: await stack.db.run.count(),
  targets: await stack.db.target.count(),
  workloads: await stack.db.workload.count(),
});

beforeAll(async () => {
  stack = await openTestStack();
  await stack.scope.workloads.put(shortRamp("cli-study-ramp", { vus: 2, holdSeconds: 1 }));
});
afterAll(() => stack.close());

describe("opsbench study", () => {
  it("refuses a bad study file with exit 2, names the field, and writes nothing", async () => {
    const before = await counts();
    const missing = await opsbench("study", "run", path.join(dir, "nope.json"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file");

    const notJson = await opsbench("study", "run", studyFile("broken.json", "{ targets: "));
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("is not valid JSON");

    // An inline target with a bad spec, and a bad repetitions: both fields named.
    const bad = await opsbench(
      "study",
      "run",
      studyFile("bad.json", {
        name: "bad",
        targets: [{ ...taewaTarget("cli-new-target"), spec: { app: "cpu-loop/node-http", replicas: 0 } }],
        workloads: ["cli-study-ramp"],
        repetitions: 0,
      }),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/targets\.0\.spec\.replicas: /);
    expect(bad.stderr).toMatch(/repetitions: /);

    const unknownKey = await opsbench("study", "run", studyFile("key.json", { name: "k", targets: ["x"], workloads: ["y"], cooldown: 5 }));
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.stderr).toContain("cooldown: unrecognized key");

    // A valid file naming a workload that does not exist: the inline target in it is not written either.
    const unknown = await opsbench(
      "study",
      "run",
      studyFile("unknown.json", { name: "u", targets: [taewaTarget("cli-new-target")], workloads: ["no-such-workload"] }),
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('workloads.0: unknown workload "no-such-workload"');
    expect(unknown.stderr).toContain("cli-study-ramp");

    expect(await counts()).toEqual(before);
    expect((await opsbench("study", "show", "00000000-0000-0000-0000-000000000000")).code).toBe(2);
    expect((await opsbench("study", "frobnicate")).code).toBe(2);
  });

  it("runs a study from a file and waits (exit 0): progress, then each cell's mean +- SD and the runs' range (2 runs); `study show` agrees", async () => {
    const file = studyFile("ok.json", {
      name: "cli study",
      targets: [taewaTarget("cli-study-target", { replicas: 1 })],
      workloads: ["cli-study-ramp"],
      repetitions: 2,
      order: "interleaved-random",
      seed: 11,
      cooldownSeconds: 0,
    });
    const r = await opsbench("study", "run", file, "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/run 1 of 2 \(round 1\): cli-study-target x cli-study-ramp #1: started, ETA \d+s/);
    expect(r.stderr).toMatch(/run 2 of 2 \(round 2\): cli-study-target x cli-study-ramp #2: succeeded: [\d.]+ req\/s/);
    const view = JSON.parse(r.stdout);
    expect(view.status).toBe("SUCCEEDED");
    expect(view.seed).toBe(11);
    expect(view.cells).toHaveLength(1);
    const cell = view.cells[0];
    expect(cell.stats.rps.n).toBe(2);
    // Two runs: no confidence interval, their range (core's domain-interval.ts).
    const rps = cell.runs.map((x: { result: { rps: number } }) => x.result.rps);
    expect(cell.stats.rps.ci95).toBeNull();
    expect(cell.stats.rps.interval).toEqual({ kind: "min-max", level: null, low: Math.min(...rps), high: Math.max(...rps) });
    expect(cell.merged.requests).toBe(cell.runs[0].result.requests + cell.runs[1].result.requests);
    // Two repetitions are fewer than three: said on the runs and on the cell.
    expect(cell.runs.every((x: { flags: Array<{ code: string }> }) => x.flags.some((f) => f.code === "too-few-repetitions"))).toBe(true);
    expect(cell.flags.map((f: { code: string }) => f.code)).toEqual(["too-few-repetitions"]);
    // The inline target now exists, as defined in the file.
    expect((await stack.scope.targets.byName("cli-study-target")).spec).toMatchObject({ replicas: 1 });

    const show = await opsbench("study", "show", view.id);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("cli-study-target x cli-study-ramp: 2 of 2 repetitions succeeded");
    expect(show.stdout).toMatch(/req\/s +[\d.]+ \+- [\d.]+ \(min-max [\d.]+ to [\d.]+; n = 2: not informative\)/);
    expect(show.stdout).toContain("flag     too-few-repetitions");
  });

  it("exits 1 when a run of the study fails", async () => {
    const file = studyFile("fails.json", {
      name: "failing",
      // The iot app exits at start-up without its database's URL.
      targets: [taewaTarget("cli-study-broken", { app: "iot", replicas: 1 })],
      workloads: ["cli-study-ramp"],
      repetitions: 1,
      cooldownSeconds: 0,
    });
    const r = await opsbench("study", "run", file);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain(": FAILED (1 of 1 runs did not succeed)");
    expect(r.stderr).toMatch(/#1: failed: benchapp exited during start-up/);
  });
});
