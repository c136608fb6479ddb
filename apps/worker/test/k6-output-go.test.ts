import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("k6 output extension (Go)", () => {
  it("passes its own tests, including the encoding vectors shared with packages/core", () => {
    const r = spawnSync("go", ["test", "./..."], { cwd: path.resolve(import.meta.dirname, "../k6-build"), encoding: "utf8" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok\s+\S+\/output/m);
  });
});
