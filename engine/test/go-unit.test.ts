// The engine's own Go tests (options, scheduler, JS runtime, HTTP client, results, outputs), run by `npm test`.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("opsbench-engine (Go)", () => {
  it("passes its own tests, the encoding vectors shared with packages/core among them", () => {
    const r = spawnSync("go", ["test", "-count=1", "./..."], { cwd: path.resolve(import.meta.dirname, ".."), encoding: "utf8" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    for (const pkg of ["options", "scheduler", "js", "netclient", "summary", "thresholds", "output", "declarative", "archive"])
      expect(r.stdout).toMatch(new RegExp(`^ok\\s+\\S+/internal/${pkg}\\b`, "m"));
  });
});
