// opsbench is Apache-2.0 (issue 37): the licence text at the root and beside every package's manifest (a package
// taken out of the repository, as the packed CLI is, carries its licence with it), the same `license` field in each,
// a NOTICE, and both images holding LICENSE and NOTICE. The packed CLI's tarball is checked in
// apps/cli/test/packed-cli.test.ts (packing takes a while).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const licence = read("LICENSE");

/** The root and every workspace under apps/ and packages/ (the project's own code; benchapps are apps under test). */
const packageDirs = [
  ".",
  ...["apps", "packages"].flatMap((parent) =>
    readdirSync(path.join(root, parent))
      .map((d) => `${parent}/${d}`)
      .filter((d) => existsSync(path.join(root, d, "package.json"))),
  ),
];

describe("licence files", () => {
  it("the root LICENSE is the Apache License 2.0, whole (its terms and the appendix)", () => {
    expect(licence).toContain("Apache License\n                           Version 2.0, January 2004");
    expect(licence).toContain("END OF TERMS AND CONDITIONS");
    expect(licence).toContain("APPENDIX: How to apply the Apache License to your work.");
    expect(licence.length).toBeGreaterThan(11_000);
  });

  it("every package.json says Apache-2.0 and has the same LICENSE beside it", () => {
    expect(packageDirs.length).toBeGreaterThanOrEqual(11);
    for (const dir of packageDirs) {
      const pkg = JSON.parse(read(path.join(dir, "package.json"))) as { license?: string };
      expect(pkg.license, `${dir}/package.json`).toBe("Apache-2.0");
      expect(existsSync(path.join(root, dir, "LICENSE")), `${dir}/LICENSE`).toBe(true);
      expect(read(path.join(dir, "LICENSE")) === licence, `${dir}/LICENSE is the root's`).toBe(true);
    }
  });

  it("the CLI can be published (not private); the monorepo's root stays private", () => {
    expect(JSON.parse(read("apps/cli/package.json")).private).toBeUndefined();
    expect(JSON.parse(read("package.json")).private).toBe(true);
  });

  it("NOTICE names opsbench and the Apache-2.0 dependencies whose NOTICE files it must reproduce", () => {
    const notice = read("NOTICE");
    expect(notice.split("\n")[0]).toBe("opsbench");
    // Each one found with a NOTICE file in node_modules (the images ship node_modules) is reproduced.
    for (const pkg of ["@prisma/studio-core", "bare-path", "playwright-core"]) {
      const manifest = path.join(root, "node_modules", pkg, "package.json");
      if (!existsSync(manifest)) continue;
      expect(JSON.parse(readFileSync(manifest, "utf8")).license, pkg).toBe("Apache-2.0");
      expect(existsSync(path.join(root, "node_modules", pkg, "NOTICE")), `${pkg} has a NOTICE`).toBe(true);
      expect(notice, pkg).toContain(pkg);
    }
    // helm 4's modules with a NOTICE file (docs/dependencies.md, "Licences").
    for (const mod of [
      "helm.sh/helm/v4",
      "github.com/tetratelabs/wazero",
      "github.com/prometheus/client_golang",
      "github.com/go-openapi/jsonpointer",
      "sigs.k8s.io/randfill",
    ])
      expect(notice).toContain(mod);
  });

  it("both images copy LICENSE and NOTICE into /app", () => {
    const stages = new Map<string, { from: string; lines: string[] }>();
    let current = "";
    for (const line of read("Dockerfile")
      .split("\n")
      .map((l) => l.trim())) {
      const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
      if (from) {
        current = from[2] ?? from[1]!;
        stages.set(current, { from: from[1]!, lines: [] });
      } else if (line && !line.startsWith("#")) stages.get(current)?.lines.push(line);
    }
    /** Whether /app/<file> is there at the end of a stage: copied in, copied from a stage that has it, or inherited. */
    const has = (stage: string, file: string): boolean => {
      const s = stages.get(stage);
      if (!s) return false;
      for (const line of s.lines) {
        const copy = /^COPY\s+(?:--from=(\S+)\s+)?(.+)\s+(\S+)$/i.exec(line);
        if (!copy) continue;
        const sources = copy[2]!.split(/\s+/);
        if (!copy[1] && sources.includes(file)) return true;
        if (copy[1] && (sources.includes(`/app/${file}`) || (sources.includes("/app") && has(copy[1], file)))) return true;
      }
      return has(s.from, file);
    };
    for (const image of ["web", "app"]) for (const file of ["LICENSE", "NOTICE"]) expect(has(image, file), `${image}: ${file}`).toBe(true);
  });
});
