// Builds opsbench-engine (engine/, our own load engine) into .tools/, keyed by a hash of its sources, go.mod and
// go.sum; an existing build of the same key is reused. The Dockerfile's go-build stage builds the same sources.
//   node engine/build.mjs            build when missing, print the binary's path
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const src = path.join(root, "engine");

/** The folders whose Go files go into the binary (not the conformance corpus, not tests). */
const SOURCE_DIRS = ["cmd", "internal"];

export function engineBuildInfo() {
  const hash = createHash("sha256");
  for (const f of ["go.mod", "go.sum"]) if (existsSync(path.join(src, f))) hash.update(f).update(readFileSync(path.join(src, f)));
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".go") && !e.name.endsWith("_test.go")) hash.update(path.relative(src, p)).update(readFileSync(p));
    }
  };
  for (const d of SOURCE_DIRS) if (existsSync(path.join(src, d))) walk(path.join(src, d));
  const key = `opsbench-engine-${hash.digest("hex").slice(0, 12)}`;
  return { key, binary: path.join(root, ".tools", key, "opsbench-engine") };
}

export function ensureEngine({ log = console.log } = {}) {
  const { key, binary } = engineBuildInfo();
  if (existsSync(binary)) return { key, binary, built: false };
  const go = spawnSync("go", ["version"], { encoding: "utf8" });
  if (go.status !== 0) throw new Error("Go is needed to build opsbench-engine (https://go.dev/dl/); `go version` failed");
  log("building opsbench-engine (about a minute on 2 cores the first time)...");
  const tmp = `${binary}.tmp-${process.pid}`;
  mkdirSync(path.dirname(binary), { recursive: true });
  const r = spawnSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", tmp, "./cmd/opsbench-engine"], {
    cwd: src,
    stdio: "inherit",
    env: { ...process.env, CGO_ENABLED: "0" },
  });
  if (r.status !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`go build of opsbench-engine failed (exit ${r.status})`);
  }
  renameSync(tmp, binary);
  // Builds older than a day are of no further use (a newer one may still be in use by a running worker).
  const tools = path.dirname(path.dirname(binary));
  for (const dir of readdirSync(tools)) {
    const p = path.join(tools, dir);
    if (dir.startsWith("opsbench-engine-") && p !== path.dirname(binary) && Date.now() - statSync(p).mtimeMs > 24 * 3600 * 1000)
      rmSync(p, { recursive: true, force: true });
  }
  return { key, binary, built: true };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = ensureEngine();
  console.log(`${r.built ? "built" : "reusing"} ${r.binary}`);
}
