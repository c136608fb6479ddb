import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileK6Script, durationSeconds, workloadSpec } from "@opsbench/core";
import { loadEnv } from "../src/env";

const k6 = loadEnv({}).OPSBENCH_ENGINE;

function inspect(script: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-k6-"));
  writeFileSync(path.join(dir, "script.js"), script);
  const r = spawnSync(k6, ["inspect", "script.js"], { cwd: dir, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe("k6 script compiler, checked by the real k6", () => {
  it("compiles a ramping-VU workload into exactly its stages, timeout and thresholds", () => {
    const spec = workloadSpec.parse({
      kind: "ramping-vus",
      stages: [
        { duration: "1m", target: 10 },
        { duration: "13m", target: 100 },
        { duration: "30s", target: 0 },
      ],
      requestTimeout: "60s",
      requests: [{ name: "home", path: "/?n=1" }],
      thresholds: { http_req_duration: ["p(95)<500"] },
    });
    if (spec.kind !== "ramping-vus") throw new Error("parsed as another kind");
    const options = inspect(compileK6Script(spec));
    expect(options.scenarios.main.executor).toBe("ramping-vus");
    // k6 normalises durations ("1m" -> "1m0s"); compare them in seconds.
    const seconds = (stages: Array<{ duration: string; target: number }>) => stages.map((s) => [durationSeconds(s.duration), s.target]);
    expect(seconds(options.scenarios.main.stages)).toEqual(seconds(spec.stages));
    expect(seconds(options.scenarios.main.stages)).toEqual([
      [60, 10],
      [780, 100],
      [30, 0],
    ]);
    expect(options.thresholds.http_req_duration).toEqual(["p(95)<500"]);
    expect(options.summaryTrendStats).toContain("p(99)");
  });
});
