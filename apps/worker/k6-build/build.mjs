// Builds the pinned k6 with opsbench's output extension compiled in
// (apps/worker/k6-build) into .tools/, keyed by the k6 version and a hash of the
// extension's sources; an existing build of the same key is reused.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const src = path.join(root, "apps/worker/k6-build");

export function k6BuildInfo() {
  const goMod = readFileSync(path.join(src, "go.mod"), "utf8");
  const version = /go\.k6\.io\/k6 (v[\d.]+)/.exec(goMod)?.[1];
  if (!version) throw new Error("apps/worker/k6-build/go.mod does not pin go.k6.io/k6");
  const hash = createHash("sha256");
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(go|mod|sum)$/.test(e.name) && !e.name.endsWith("_test.go")) hash.update(e.name).update(readFileSync(p));
    }
  };
  walk(src);
  const key = `k6-${version}-opsbench-${hash.digest("hex").slice(0, 12)}`;
  return { version, binary: path.join(root, ".tools", key, "k6") };
}

export function ensureK6({ log = console.log } = {}) {
  const { version, binary } = k6BuildInfo();
  if (existsSync(binary)) return { version, binary, built: false };
  const go = spawnSync("go", ["version"], { encoding: "utf8" });
  if (go.status !== 0) throw new Error("Go is needed to build k6 (https://go.dev/dl/); `go version` failed");
  log(`building k6 ${version} with the opsbench output (about 1.5 minutes on 2 cores)...`);
  const tmp = `${binary}.tmp-${process.pid}`;
  mkdirSync(path.dirname(binary), { recursive: true });
  const r = spawnSync("go", ["build", "-trimpath", "-o", tmp, "."], {
    cwd: src,
    stdio: "inherit",
    env: { ...process.env, CGO_ENABLED: "0" },
  });
  if (r.status !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`go build of k6 failed (exit ${r.status})`);
  }
  renameSync(tmp, binary);
  // Builds older than a day are of no further use (newer ones may still be in use by a running worker).
  const tools = path.dirname(path.dirname(binary));
  for (const dir of readdirSync(tools)) {
    const p = path.join(tools, dir);
    if (dir.startsWith("k6-") && p !== path.dirname(binary) && Date.now() - statSync(p).mtimeMs > 24 * 3600 * 1000)
      rmSync(p, { recursive: true, force: true });
  }
  return { version, binary, built: true };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = ensureK6();
  console.log(`${r.built ? "built" : "reusing"} ${r.binary}`);
}
