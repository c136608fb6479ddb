// One-command set-up for a fresh machine: Node 24 (into .tools/ when the machine's is older;
// the set-up then continues on it, scripts/project-node.mjs), npm dependencies, the Prisma client, the
// load engine (built from engine/), Postgres and Redis on loopback (from the distribution's packages when
// missing), the benchapps that need a build, and the database schema. Safe to run
// again: it reuses what is there. One line per step; the tools' own output goes to
// .data/setup.log (shown when a step fails), or to the terminal with --verbose.
//   node scripts/setup.mjs [--for demo|test] [--verbose]
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { helmBuildInfo } from "../apps/worker/helm-build/build.mjs";
import { engineBuildInfo } from "../engine/build.mjs";
import { startTestBuildsInBackground } from "../tests/control-plane/build.mjs";
import { applySecretFiles } from "../packages/core/src/local-settings.mjs";
import { localServices } from "./local-services.mjs";
import { ensureProjectNode, NODE_MAJOR, NODE_VERSION, onNodeEnough, projectNode, rerunOnProjectNode } from "./project-node.mjs";
import { createSteps, StepError } from "./setup-steps.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// DATABASE_URL_FILE and the other secrets' *_FILE: read once here, so every step and child sees the values.
applySecretFiles(process.env);
const purpose = process.argv.includes("--for") ? process.argv[process.argv.indexOf("--for") + 1] : "demo";
const isRoot = process.getuid?.() === 0;
const { step, run, note, logRel } = createSteps({
  logFile: path.join(root, ".data/setup.log"),
  verbose: process.argv.includes("--verbose"),
  cwd: root,
});

const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
const fileHash = (files) => {
  const h = createHash("sha256");
  for (const f of files) if (existsSync(f)) h.update(readFileSync(f));
  return h.digest("hex");
};
/** A step's work is skipped while its stamp matches the hash of its inputs. */
const stamped = (stamp, want) => existsSync(stamp) && readFileSync(stamp, "utf8") === want;

// Debian packages for the services (and Chromium for the browser tests); servers of your own need none.
async function systemPackages() {
  const missing = [];
  if (!process.env.DATABASE_URL && !localServices.postgresBin("postgres")) missing.push("postgresql");
  if (!process.env.REDIS_URL && !has("redis-server")) missing.push("redis-server");
  // The k6 sandbox (docs/security.md): bubblewrap for its filesystem view, nftables for a network reaching only the target.
  // Its network part needs root, so without root they are not required (the worker then refuses runs unless allowed, and flags them).
  if (isRoot && !has("bwrap")) missing.push("bubblewrap");
  if (isRoot && !has("nft")) missing.push("nftables");
  // The headless shell: the browser tests' Chromium (tests/helpers.ts launchBrowser), lighter than the full browser.
  if (purpose === "test" && !existsSync("/usr/bin/chromium-headless-shell")) missing.push("chromium-headless-shell");
  // benchapps/apache (study 002's static app); its service is not started (the local engine runs it per replica).
  if (purpose === "test" && !existsSync("/usr/sbin/apache2")) missing.push("apache2");
  if (missing.length === 0) return "present";
  if (!isRoot || !has("apt-get")) {
    throw new StepError(
      `missing system packages: ${missing.join(", ")}. Install them (e.g. sudo apt-get install -y ${missing.join(" ")}) or set DATABASE_URL and REDIS_URL to servers of your own.`,
    );
  }
  await run("apt-get", ["update"]);
  await run("apt-get", ["install", "-y", "--no-install-recommends", ...missing], {
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  return `installed ${missing.join(", ")}`;
}

// Routed egress (docs/security.md "Remote targets"): k6's load network reaches a remote target only through the
// host's IPv4 forwarding, which a fresh Debian boots with off. The nftables table of each run still admits only
// its target's one address and port. Without root it is left as it is (the runner then refuses remote targets).
async function ipv4Forwarding() {
  const file = "/proc/sys/net/ipv4/ip_forward";
  if (!existsSync(file)) return "not on Linux: remote targets need an unsandboxed worker";
  if (readFileSync(file, "utf8").trim() === "1") return "on";
  if (!isRoot) return "off (net.ipv4.ip_forward=0; as root, `sysctl -w net.ipv4.ip_forward=1` lets sandboxed runs reach remote targets)";
  await run("sysctl", ["-qw", "net.ipv4.ip_forward=1"]);
  return "turned on (net.ipv4.ip_forward=1), for sandboxed runs against remote targets";
}

// npm dependencies, reinstalled when package-lock.json or package.json changes.
async function npmDependencies() {
  const stamp = path.join(root, "node_modules/.opsbench-lock-hash");
  const want = fileHash([path.join(root, "package-lock.json"), path.join(root, "package.json")]);
  if (stamped(stamp, want)) return "up to date";
  // A fresh clone installs exactly what the lock file says (npm ci: alone, 38 s against npm install's 47 s here; beside
  // the Python tools the set-up installs meanwhile, no faster in three fresh clones). A checkout that has its packages
  // updates them in place, where npm ci would delete them all first.
  const fresh = !existsSync(path.join(root, "node_modules"));
  await run("npm", [fresh ? "ci" : "install", "--no-audit", "--no-fund"]);
  writeFileSync(stamp, want);
  return "installed";
}

// The Prisma client, regenerated when the schema changes.
async function prismaClient() {
  const stamp = path.join(root, "packages/db/src/generated/prisma/.schema-hash");
  const want = fileHash([path.join(root, "prisma/schema.prisma")]);
  if (stamped(stamp, want)) return "up to date";
  await run("npm", ["run", "generate", "-w", "@opsbench/db", "--silent"]);
  writeFileSync(stamp, want);
  return "generated";
}

// Benchapps with a build step (Go binaries, the Flask app's virtualenv) into .tools/benchapps,
// each rebuilt only when missing or changed (benchapps/build.mjs prints "app: built|fresh").
async function benchapps() {
  const lines = (await run(process.execPath, ["benchapps/build.mjs"])).trim().split("\n").filter(Boolean);
  const built = lines.filter((l) => l.endsWith(": built")).map((l) => l.slice(0, -": built".length));
  return built.length ? `built ${built.join(", ")}` : `${lines.length} up to date`;
}

// opsbench-engine, the load engine (engine/), built with Go when its sources changed since the last build.
async function engine() {
  const { binary } = engineBuildInfo();
  const where = path.relative(root, binary);
  if (existsSync(binary)) return `present (${where})`;
  await run(process.execPath, ["engine/build.mjs"]);
  return `built (${where})`;
}

// The pinned helm (kubernetes targets' charts), built with Go when this version is not there yet.
async function helm() {
  const { version, binary } = helmBuildInfo();
  const where = path.relative(root, binary);
  if (existsSync(binary)) return `${version} present (${where})`;
  await run(process.execPath, ["apps/worker/helm-build/build.mjs"]);
  return `${version} built (${where})`;
}

// A PyPI tool in a virtualenv of its own under .tools/, pinned in a requirements file and reinstalled when that file changes.
async function pythonVenv(name, requirementsFile) {
  const requirements = path.join(root, requirementsFile);
  const venv = path.join(root, ".tools", name);
  const stamp = path.join(venv, ".requirements-hash");
  const want = fileHash([requirements]);
  if (stamped(stamp, want)) return "up to date";
  await run("python3", ["-m", "venv", venv]);
  await run(path.join(venv, "bin/pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", requirements]);
  writeFileSync(stamp, want);
  return "installed";
}

// schemathesis, for the fuzz pass over /api/v1/openapi.json (tests only).
const schemathesis = () => pythonVenv("schemathesis-venv", "tests/schemathesis-requirements.txt");
// moto[server]: the AWS APIs on loopback for the aws-asg and aws-lambda tests (tests/moto.ts; tests only).
const moto = () => pythonVenv("moto-venv", "tests/moto-requirements.txt");

// Postgres and Redis on loopback, unless DATABASE_URL / REDIS_URL name servers of your own.
async function services() {
  const said = [];
  const env = await localServices.start({
    log: (m) => {
      note(m);
      said.push(m);
    },
  });
  const own = [process.env.DATABASE_URL && "DATABASE_URL", process.env.REDIS_URL && "REDIS_URL"].filter(Boolean);
  const started = said.filter((m) => / on 127\.0\.0\.1:/.test(m));
  return { env, result: [...started, ...(own.length ? [`using ${own.join(" and ")}`] : [])].join(", ") };
}

// Node NODE_MAJOR: the machine's when it is new enough, else the pinned one from the npm registry into .tools/
// (reused while present); the set-up then runs again on it, so that npm install and everything after run on it.
// OPSBENCH_SETUP_STARTED marks that second run (its value: when the first one started).
async function node() {
  if (onNodeEnough()) {
    const where = process.execPath.startsWith(root) ? path.relative(root, process.execPath) : process.execPath;
    return `${process.version} (${where})`;
  }
  const done = await ensureProjectNode(run);
  return `v${NODE_VERSION} ${done} (${path.relative(root, projectNode.dir)}; the machine's is ${process.version})`;
}

/** Starts `work` now, for a step that awaits it later; its failure is reported by that step, not as unhandled. */
function alongside(work) {
  const result = work();
  result.catch(() => {});
  return result;
}

async function main() {
  const rerun = process.env.OPSBENCH_SETUP_STARTED;
  delete process.env.OPSBENCH_SETUP_STARTED;
  const started = rerun ? Number(rerun) : Date.now();
  if (!rerun) await step(`Node ${NODE_MAJOR}`, node, { usually: "10-30 s to download the first time" });
  if (!rerun && !onNodeEnough()) await rerunOnProjectNode({ OPSBENCH_SETUP_STARTED: String(started) });
  await step("system packages", systemPackages);
  await step("IPv4 forwarding", ipv4Forwarding);
  // The tests' Python tools install while npm does (about a minute saved on a fresh clone); their steps below wait.
  const pythonTools = purpose === "test" ? { schemathesis: alongside(schemathesis), moto: alongside(moto) } : null;
  // So do the Go builds, which need nothing from npm: in a fresh clone they took 14 s after it (benchapps 8.5 s, helm
  // 4.5 s, the engine 0.9 s, from Go's build cache) while npm's install mostly waits on the disk.
  // Only kubernetes targets with a chart need helm: the tests do, the demo (local targets) does not.
  const goBuilds = { benchapps: alongside(benchapps), engine: alongside(engine), helm: purpose === "test" ? alongside(helm) : null };
  await step("npm dependencies", npmDependencies, { usually: "1-3 min on a fresh clone" });
  await step("Prisma client", prismaClient);
  await step("benchapps", () => goBuilds.benchapps, { usually: "about 1 min on a fresh clone" });
  await step("load engine", () => goBuilds.engine, { usually: "about 1 min to build on 2 cores the first time" });
  if (goBuilds.helm) await step("helm", () => goBuilds.helm, { usually: "about 3 min to build on 2 cores the first time" });
  if (pythonTools) await step("schemathesis", () => pythonTools.schemathesis, { usually: "about 30 s on a fresh clone" });
  if (pythonTools) await step("moto (AWS emulator)", () => pythonTools.moto, { usually: "about 30 s on a fresh clone" });
  // 15+ CPU-minutes the first time: built in the background; only the Kubernetes tests wait for it.
  if (purpose === "test") await step("Kubernetes control plane and Knative", async () => startTestBuildsInBackground());
  let env;
  await step(
    "Postgres and Redis",
    async () => {
      const r = await services();
      env = r.env;
      return r.result;
    },
    { usually: "a few seconds" },
  );
  const url = purpose === "test" ? env.testDatabaseUrl : env.databaseUrl;
  await step("database schema", async () => {
    const said = (
      await run("npx", ["tsx", "packages/db/src/migrations/migrate-cli.ts"], { env: { ...process.env, DATABASE_URL: url } })
    ).trim();
    // "migrate: DB: applied a, b, c" -> "DB: applied 3 migrations" (the names are in the log).
    return said.replace(/^migrate: /, "").replace(/applied (.+)$/, (_, names) => `applied ${names.split(", ").length} migration(s)`);
  });
  console.log(`setup: ready in ${((Date.now() - started) / 1000).toFixed(1)} s (tools' output: ${logRel})`);
}

main().catch((err) => {
  console.error(`setup failed: ${err.message}`);
  process.exit(1);
});
