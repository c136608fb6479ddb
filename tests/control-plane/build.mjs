// Builds the tests' Kubernetes control plane into .tools/kube-<version>-<hash>/ (reused when there):
// kube-apiserver, kube-controller-manager and kube-scheduler from k8s.io/kubernetes, etcd from
// go.etcd.io/etcd/server/v3, kwok and its Stage files; and Knative Serving's controller and autoscaler with the
// CRDs and config maps that install it into .tools/knative-<version>-<hash>/ (from knative.dev/serving). The first
// builds take about 15 and 10 CPU-minutes (the Go build cache makes later ones short), so `setup --for test` starts
// them in the background (`--background`, one after the other) and the Kubernetes test files wait for them
// (waitForControlPlaneBuild, waitForKnativeBuild).
//   node tests/control-plane/build.mjs [--background] [control-plane] [knative]
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

// Knative Serving's binaries that make a Service Ready here: the controller (Service, Configuration, Revision, Route,
// ServerlessService) and the autoscaler (the KPA, which reconciles each Revision's PodAutoscaler). Not the webhook
// (opsbench writes every field it needs), nor the activator (it proxies to pods: kwok's pods have no network).
// The controller is built from knative/controller/main.go: cmd/controller's reconcilers with its health-probe
// server off (it would take :8080, where the autoscaler's stat server listens).
const KNATIVE_BINARIES = [
  ["controller", "./controller"],
  ["autoscaler", "knative.dev/serving/cmd/autoscaler"],
];
const NETWORKING = "knative.dev/networking";
const KNATIVE_CONFIG = [
  ["namespace", "knative.dev/serving", ["config/core/100-namespace.yaml"]],
  [
    "crds",
    "knative.dev/serving",
    ["configuration", "domain-mapping", "metric", "podautoscaler", "revision", "route", "service"].map(
      (n) => `config/core/300-resources/${n}.yaml`,
    ),
  ],
  ["crds", NETWORKING, ["certificate", "domain-claim", "ingress", "serverlessservice"].map((n) => `config/${n}.yaml`)],
  ["crds", "knative.dev/caching", ["config/image.yaml"]],
  [
    "configmaps",
    "knative.dev/serving",
    ["autoscaler", "defaults", "deployment", "domain", "features", "gc", "leader-election", "logging", "observability", "tracing"].map(
      (n) => `config/core/configmaps/${n}.yaml`,
    ),
  ],
  ["configmaps", NETWORKING, ["config/config-network.yaml"]],
  // The activator's Service (the tests apply its Service documents only): a ServerlessService reads its Endpoints.
  ["services", "knative.dev/serving", ["config/core/deployments/activator.yaml"]],
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

export function knativeBuildInfo() {
  const mod = readFileSync(path.join(here, "knative/go.mod"), "utf8");
  const version = /knative\.dev\/serving (v[\d.]+)/.exec(mod)?.[1];
  if (!version) throw new Error("tests/control-plane/knative/go.mod does not pin knative.dev/serving");
  const hash = createHash("sha256").update(JSON.stringify([KNATIVE_BINARIES, KNATIVE_CONFIG]));
  for (const f of readdirSync(path.join(here, "knative"), { recursive: true }).sort())
    if (/\.(go|mod|sum)$/.test(f)) hash.update(f).update(readFileSync(path.join(here, "knative", f)));
  const dir = path.join(root, ".tools", `knative-${version}-${hash.digest("hex").slice(0, 12)}`);
  return {
    version,
    dir,
    lock: `${dir}.building`,
    log: path.join(root, ".data/knative-build.log"),
    /** The YAML files to apply, by group (namespace, crds, configmaps). */
    config: (group) => path.join(dir, "config", group),
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
/** Where a module of a build's go.mod is in the module cache. */
const moduleDir = (cwd, mod) => spawnSync("go", ["list", "-m", "-f", "{{.Dir}}", mod], { cwd, encoding: "utf8" }).stdout.trim();

function go(args, cwd, log) {
  // nice: the build shares the machine with running suites.
  const r = spawnSync("nice", ["-n", "10", "go", ...args], {
    cwd,
    stdio: ["ignore", log, log],
    env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=mod" },
  });
  if (r.status !== 0) throw new Error(`go ${args.join(" ")} failed in ${path.relative(root, cwd)} (exit ${r.status})`);
}

function buildControlPlaneInto(tmp, info, out) {
  const minor = info.version.split(".")[1];
  const ldflags = [
    "-s -w",
    `-X k8s.io/component-base/version.gitVersion=${info.version}`,
    "-X k8s.io/component-base/version.gitMajor=1",
    `-X k8s.io/component-base/version.gitMinor=${minor}`,
    "-X k8s.io/component-base/version.gitTreeState=clean",
  ].join(" ");
  go(["build", "-trimpath", "-ldflags", "-s -w", "-o", path.join(tmp, "etcd"), "."], path.join(here, "etcd"), out);
  go(["build", "-trimpath", "-ldflags", "-s -w", "-o", path.join(tmp, "kwok"), "sigs.k8s.io/kwok/cmd/kwok"], path.join(here, "kwok"), out);
  const kwokDir = moduleDir(path.join(here, "kwok"), "sigs.k8s.io/kwok");
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
}

function buildKnativeInto(tmp, _info, out) {
  const cwd = path.join(here, "knative");
  for (const [bin, pkg] of KNATIVE_BINARIES) go(["build", "-trimpath", "-ldflags", "-s -w", "-o", path.join(tmp, bin), pkg], cwd, out);
  // What the cluster's owner applies to install Knative Serving: its CRDs (with networking's and caching's that its
  // controllers watch) and its config maps, copied from the modules the binaries were built from.
  for (const [group, mod, files] of KNATIVE_CONFIG) {
    const from = moduleDir(cwd, mod);
    mkdirSync(path.join(tmp, "config", group), { recursive: true });
    for (const f of files)
      copyFileSync(path.join(from, f), path.join(tmp, "config", group, `${path.basename(path.dirname(f))}-${path.basename(f)}`));
  }
}

const BUILDS = {
  "control-plane": {
    info: controlPlaneBuildInfo,
    into: buildControlPlaneInto,
    what: "the Kubernetes control plane",
    pattern: /^kube-v[\d.]+-[0-9a-f]{12}$/,
  },
  knative: { info: knativeBuildInfo, into: buildKnativeInto, what: "Knative Serving", pattern: /^knative-v[\d.]+-[0-9a-f]{12}$/ },
};

/** Builds into a temporary folder and renames it into place, so a folder that exists is complete. */
function build(name, { log = console.log } = {}) {
  const { info: infoOf, into, what, pattern } = BUILDS[name];
  const info = infoOf();
  if (complete(info)) return { ...info, built: false };
  const holder = lockHolder(info);
  if (holder && holder !== process.pid) throw new Error(`a ${name} build is already running (pid ${holder})`);
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
    log(`building ${what} ${info.version} into ${path.relative(root, info.dir)} (15+ CPU-minutes the first time)...`);
    into(tmp, info, out);
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
      if (pattern.test(d) && p !== info.dir && Date.now() - statSync(p).mtimeMs > 24 * 3600 * 1000)
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

export const buildControlPlane = (opts) => build("control-plane", opts);
export const buildKnative = (opts) => build("knative", opts);

/**
 * Starts the builds that are missing, one after the other in one detached process (its output in .data/); returns
 * what it did. Each missing build's lock names that process from the start, so a test waits rather than builds too.
 */
export function startTestBuildsInBackground() {
  const said = [];
  const missing = [];
  for (const [name, { info: infoOf, what }] of Object.entries(BUILDS)) {
    const info = infoOf();
    const holder = lockHolder(info);
    if (complete(info)) said.push(`${what} ${info.version} present (${path.relative(root, info.dir)})`);
    else if (holder) said.push(`${what} being built (pid ${holder}, log ${path.relative(root, info.log)})`);
    else missing.push([name, info]);
  }
  if (missing.length > 0) {
    const log = missing[0][1].log;
    mkdirSync(path.dirname(log), { recursive: true });
    const out = openSync(log, "a");
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...missing.map(([name]) => name)], {
      detached: true,
      stdio: ["ignore", out, out],
    });
    child.unref();
    for (const [name, info] of missing) {
      writeFileSync(info.lock, String(child.pid));
      said.push(`${BUILDS[name].what} building in the background (pid ${child.pid}, log ${path.relative(root, log)})`);
    }
  }
  return `${said.join("; ")}${missing.length ? "; the Kubernetes tests wait for it" : ""}`;
}

/** Waits for a running build (or builds here when none runs); resolves with the build's paths. */
async function waitForBuild(name, { timeoutMs = 60 * 60 * 1000, log = () => {} } = {}) {
  const info = BUILDS[name].info();
  const deadline = Date.now() + timeoutMs;
  let said = false;
  while (!complete(info)) {
    if (!lockHolder(info)) {
      build(name, { log });
      break;
    }
    if (!said) log(`waiting for the ${name} build (log ${path.relative(root, info.log)})`);
    said = true;
    if (Date.now() > deadline) throw new Error(`the ${name} build did not finish within ${timeoutMs / 60000} min`);
    await new Promise((r) => setTimeout(r, 5000));
  }
  return info;
}

export const waitForControlPlaneBuild = (opts) => waitForBuild("control-plane", opts);
export const waitForKnativeBuild = (opts) => waitForBuild("knative", opts);

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes("--background")) console.log(startTestBuildsInBackground());
  else {
    // node build.mjs [control-plane] [knative]: those builds in order (default: both).
    const names = process.argv.slice(2).filter((a) => a in BUILDS);
    for (const name of names.length ? names : Object.keys(BUILDS)) {
      const r = build(name);
      console.log(`${r.built ? "built" : "reusing"} ${r.dir}`);
    }
  }
}
