// Builds the tests' Kubernetes control plane into .tools/kube-<version>-<hash>/ (reused when there):
// kube-apiserver, kube-controller-manager and kube-scheduler from k8s.io/kubernetes, etcd from
// go.etcd.io/etcd/server/v3, kwok and its Stage files. The first build takes about 15 CPU-minutes
// (the Go build cache makes later ones short), so `setup --for test` starts it in the background
// (`--background`) and the Kubernetes test files wait for it (waitForControlPlaneBuild).
//   node tests/control-plane/build.mjs [--background]
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const KUBE_BINARIES = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"];
export const CONTROL_PLANE_BINARIES = [...KUBE_BINARIES, "etcd", "kwok"];
// kwok's Stage files, from its module: nodes Ready and pods Running/Ready at once ("fast"), and node heartbeats
// every 20-45 s (without them the node controller marks the nodes NotReady, and their pods unready, after 50 s).
const KWOK_STAGES = [
  ["node", "fast"],
  ["node", "heartbeat"],
  ["pod", "fast"],
];

export function controlPlaneBuildInfo() {
  const kubeMod = readFileSync(path.join(here, "kube/go.mod"), "utf8");
  const version = /k8s\.io\/kubernetes (v[\d.]+)/.exec(kubeMod)?.[1];
  if (!version) throw new Error("tests/control-plane/kube/go.mod does not pin k8s.io/kubernetes");
  const hash = createHash("sha256").update(JSON.stringify(KWOK_STAGES));
  for (const dir of ["kube", "etcd", "kwok"])
    for (const f of readdirSync(path.join(here, dir)).sort())
      if (/\.(go|mod|sum)$/.test(f)) hash.update(`${dir}/${f}`).update(readFileSync(path.join(here, dir, f)));
  const dir = path.join(root, ".tools", `kube-${version}-${hash.digest("hex").slice(0, 12)}`);
  return {
    version,
    dir,
    lock: `${dir}.building`,
    log: path.join(root, ".data/control-plane-build.log"),
    stages: path.join(dir, "kwok-stages"),
    bin: (name) => path.join(dir, name),
  };
}

const complete = (info) => existsSync(path.join(info.dir, "build-info.json"));
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const lockHolder = (info) => {
  if (!existsSync(info.lock)) return null;
  const pid = Number(readFileSync(info.lock, "utf8"));
  return pid > 0 && alive(pid) ? pid : null;
};
const duBytes = (p) => {
  const r = spawnSync("du", ["-sb", p], { encoding: "utf8" });
  return r.status === 0 ? Number(r.stdout.split("\t")[0]) : null;
};
const goEnv = (name) => spawnSync("go", ["env", name], { encoding: "utf8" }).stdout.trim();

function go(args, cwd, log) {
  // nice: the build shares the machine with running suites.
  const r = spawnSync("nice", ["-n", "10", "go", ...args], {
    cwd,
    stdio: ["ignore", log, log],
    env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=mod" },
  });
  if (r.status !== 0) throw new Error(`go ${args.join(" ")} failed in ${path.relative(root, cwd)} (exit ${r.status})`);
}

/** Builds into a temporary folder and renames it into place, so a folder that exists is complete. */
export function buildControlPlane({ log = console.log } = {}) {
  const info = controlPlaneBuildInfo();
  if (complete(info)) return { ...info, built: false };
  const holder = lockHolder(info);
  if (holder && holder !== process.pid) throw new Error(`a control-plane build is already running (pid ${holder})`);
  mkdirSync(path.dirname(info.dir), { recursive: true });
  mkdirSync(path.dirname(info.log), { recursive: true });
  writeFileSync(info.lock, String(process.pid));
  const out = openSync(info.log, "a");
  const tmp = `${info.dir}.tmp-${process.pid}`;
  const cache = goEnv("GOCACHE");
  const cacheBefore = duBytes(cache);
  const started = Date.now();
  try {
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    log(`building the Kubernetes control plane ${info.version} into ${path.relative(root, info.dir)} (15+ CPU-minutes the first time)...`);
    const minor = info.version.split(".")[1];
    const ldflags = [
      "-s -w",
      `-X k8s.io/component-base/version.gitVersion=${info.version}`,
      "-X k8s.io/component-base/version.gitMajor=1",
      `-X k8s.io/component-base/version.gitMinor=${minor}`,
      "-X k8s.io/component-base/version.gitTreeState=clean",
    ].join(" ");
    go(["build", "-trimpath", "-ldflags", "-s -w", "-o", path.join(tmp, "etcd"), "."], path.join(here, "etcd"), out);
    go(
      ["build", "-trimpath", "-ldflags", "-s -w", "-o", path.join(tmp, "kwok"), "sigs.k8s.io/kwok/cmd/kwok"],
      path.join(here, "kwok"),
      out,
    );
    const kwokDir = spawnSync("go", ["list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok"], {
      cwd: path.join(here, "kwok"),
      encoding: "utf8",
    }).stdout.trim();
    mkdirSync(path.join(tmp, "kwok-stages"));
    for (const [kind, set] of KWOK_STAGES) {
      const from = path.join(kwokDir, "kustomize/stage", kind, set);
      for (const f of readdirSync(from).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml"))
        copyFileSync(path.join(from, f), path.join(tmp, "kwok-stages", `${kind}-${f}`));
    }
    for (const bin of KUBE_BINARIES)
      go(
        ["build", "-trimpath", "-ldflags", ldflags, "-o", path.join(tmp, bin), `k8s.io/kubernetes/cmd/${bin}`],
        path.join(here, "kube"),
        out,
      );
    const seconds = Math.round((Date.now() - started) / 1000);
    const cacheAfter = duBytes(cache);
    const figures = {
      version: info.version,
      builtAt: new Date().toISOString(),
      seconds,
      folderBytes: duBytes(tmp),
      goCacheGrowthBytes: cacheBefore !== null && cacheAfter !== null ? cacheAfter - cacheBefore : null,
    };
    writeFileSync(path.join(tmp, "build-info.json"), `${JSON.stringify(figures, null, 2)}\n`);
    renameSync(tmp, info.dir);
    log(`built ${path.relative(root, info.dir)} in ${seconds} s`);
    // Builds of other versions older than a day are of no further use.
    for (const d of readdirSync(path.dirname(info.dir))) {
      const p = path.join(path.dirname(info.dir), d);
      if (/^kube-v[\d.]+-[0-9a-f]{12}$/.test(d) && p !== info.dir && Date.now() - statSync(p).mtimeMs > 24 * 3600 * 1000)
        rmSync(p, { recursive: true, force: true });
    }
    return { ...info, built: true, figures };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    rmSync(info.lock, { force: true });
  }
}

/** Starts the build detached (its output in .data/control-plane-build.log); returns what it did. */
export function startControlPlaneBuildInBackground() {
  const info = controlPlaneBuildInfo();
  if (complete(info)) return `${info.version} present (${path.relative(root, info.dir)})`;
  const holder = lockHolder(info);
  if (holder) return `being built (pid ${holder}, log ${path.relative(root, info.log)})`;
  mkdirSync(path.dirname(info.log), { recursive: true });
  const out = openSync(info.log, "a");
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { detached: true, stdio: ["ignore", out, out] });
  child.unref();
  writeFileSync(info.lock, String(child.pid));
  return `building in the background (pid ${child.pid}, log ${path.relative(root, info.log)}); the Kubernetes tests wait for it`;
}

/** Waits for a running build (or builds here when none runs); resolves with the build's paths. */
export async function waitForControlPlaneBuild({ timeoutMs = 60 * 60 * 1000, log = () => {} } = {}) {
  const info = controlPlaneBuildInfo();
  const deadline = Date.now() + timeoutMs;
  let said = false;
  while (!complete(info)) {
    if (!lockHolder(info)) {
      buildControlPlane({ log });
      break;
    }
    if (!said) log(`waiting for the control-plane build (log ${path.relative(root, info.log)})`);
    said = true;
    if (Date.now() > deadline) throw new Error(`the control-plane build did not finish within ${timeoutMs / 60000} min`);
    await new Promise((r) => setTimeout(r, 5000));
  }
  return info;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes("--background")) console.log(startControlPlaneBuildInBackground());
  else {
    const r = buildControlPlane();
    console.log(`${r.built ? "built" : "reusing"} ${r.dir}`);
  }
}
