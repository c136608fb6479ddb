// Runs the build step a benchapp's manifest names ("build": { command, output }),
// e.g. `go build` for echo/go or a Python virtualenv for cpu-loop/flask, into the
// git-ignored .tools/benchapps. A build runs again only when its output is missing
// or the app's files (or the step itself) changed. The local providers start what
// was built; they do not build. scripts/setup.mjs calls this.
//   node benchapps/build.mjs [APP...]        (default: every app with a build step)
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const benchappsDir = path.dirname(fileURLToPath(import.meta.url));
const stampDir = path.join(benchappsDir, "..", ".tools", "benchapps", ".builds");
const SKIP = new Set(["node_modules", "__pycache__", ".venv"]);

/** Every folder under benchapps/ holding a benchapp.json, as "cpu-loop/flask". */
export function listBenchapps(dir = benchappsDir, prefix = "") {
  const apps = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || SKIP.has(entry.name) || entry.name.startsWith(".")) continue;
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (existsSync(path.join(dir, entry.name, "benchapp.json"))) apps.push(rel);
    apps.push(...listBenchapps(path.join(dir, entry.name), rel));
  }
  return apps.sort();
}

function filesOf(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesOf(full));
    else if (statSync(full).isFile()) out.push(full);
  }
  return out.sort();
}

function inputHash(appDir, build) {
  const h = createHash("sha256").update(JSON.stringify(build));
  for (const f of filesOf(appDir)) h.update(path.relative(appDir, f)).update("\0").update(readFileSync(f));
  return h.digest("hex");
}

/** Builds `app` when needed; returns "built", "fresh" or "none" (no build step). Throws with the tool's output on failure. */
export function buildBenchapp(app, { log = console.log } = {}) {
  const appDir = path.join(benchappsDir, app);
  const manifest = JSON.parse(readFileSync(path.join(appDir, "benchapp.json"), "utf8"));
  const build = manifest.build;
  if (!build) return "none";
  if (!Array.isArray(build.command) || build.command.length === 0 || typeof build.output !== "string") {
    throw new Error(`benchapp ${app}: "build" needs a command (a list) and an output (a path relative to the app)`);
  }
  const stamp = path.join(stampDir, `${app.replace(/\//g, "__")}.hash`);
  const want = inputHash(appDir, build);
  const output = path.resolve(appDir, build.output);
  if (existsSync(output) && existsSync(stamp) && readFileSync(stamp, "utf8") === want) return "fresh";
  log(`building benchapp ${app}: ${build.command.join(" ")}`);
  mkdirSync(stampDir, { recursive: true });
  const r = spawnSync(build.command[0], build.command.slice(1), { cwd: appDir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error) throw new Error(`benchapp ${app}: cannot run ${build.command[0]} (${r.error.message}); install it and run the setup again`);
  if (r.status !== 0)
    throw new Error(`benchapp ${app}: the build failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-2000)}`);
  if (!existsSync(output)) throw new Error(`benchapp ${app}: the build ran but made no ${build.output}`);
  writeFileSync(stamp, want);
  return "built";
}

/** Builds every benchapp that names a build step (or the ones given). */
export function buildBenchapps({ apps = listBenchapps(), log = console.log } = {}) {
  const results = {};
  for (const app of apps) results[app] = buildBenchapp(app, { log });
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const apps = process.argv.slice(2);
    const results = buildBenchapps(apps.length ? { apps } : {});
    for (const [app, r] of Object.entries(results)) if (r !== "none") console.log(`${app}: ${r}`);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
