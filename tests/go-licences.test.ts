// The licence check of `npm test` (scripts/check-go-licences.mjs) on the real programs and on fixtures: a program
// linking a GPL-licensed module is refused naming it, one linking an MIT module passes.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM helper without types, shared with npm run check:licences
import { checkProgram, GO_PROGRAMS } from "../scripts/check-go-licences.mjs";

type Verdict = { rows: Array<{ module: string; licence: string }>; ok: boolean; refusals: string[]; error: string };
const check = checkProgram as (p: { dir: string; pkg: string }) => Verdict;

const fixtures = mkdtempSync(path.join(os.tmpdir(), "opsbench-licences-"));
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

/** A main module importing example.com/dep (a local replace) whose licence file is `licenceFile`. */
function fixture(name: string, licenceFile: string): string {
  const dir = path.join(fixtures, name);
  mkdirSync(path.join(dir, "dep"), { recursive: true });
  writeFileSync(
    path.join(dir, "go.mod"),
    "module example.com/app\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n",
  );
  writeFileSync(path.join(dir, "main.go"), 'package main\n\nimport "example.com/dep"\n\nfunc main() { dep.Hello() }\n');
  writeFileSync(path.join(dir, "dep", "go.mod"), "module example.com/dep\n\ngo 1.22\n");
  writeFileSync(path.join(dir, "dep", "dep.go"), "package dep\n\nfunc Hello() {}\n");
  cpSync(licenceFile, path.join(dir, "dep", "LICENSE"));
  return dir;
}

describe("Go licence check", () => {
  it("refuses a program that links a GPL-3.0 module, naming the module", () => {
    const r = check({ dir: fixture("gpl", "/usr/share/common-licenses/GPL-3"), pkg: "." });
    expect(r.ok).toBe(false);
    expect(r.rows).toContainEqual({ module: "example.com/dep", licence: "GPL-3.0" });
    expect(r.refusals.join("\n")).toContain("example.com/dep");
  });

  it("passes a program whose only dependency is Apache-2.0", () => {
    const r = check({ dir: fixture("apache", "/usr/share/common-licenses/Apache-2.0"), pkg: "." });
    expect(r.error).toBe("");
    expect(r.rows).toContainEqual({ module: "example.com/dep", licence: "Apache-2.0" });
    expect(r.ok).toBe(true);
  });

  it("finds every module the engine links permissively licensed, the JS runtime among them", () => {
    const engine = (GO_PROGRAMS as Array<{ name: string; dir: string; pkg: string }>).find((p) => p.name === "opsbench-engine")!;
    const r = check(engine);
    expect(r.refusals).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.rows.map((row) => row.module)).toContain("github.com/grafana/sobek");
    for (const row of r.rows) expect(["MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC", "MPL-2.0"]).toContain(row.licence);
  });
});
