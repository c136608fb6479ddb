// Runs the checks on every change, fastest first: lint, type check, the Go licence check, then the
// vitest projects (unit; services and own-process against real Postgres,
// Redis, k6 and Chromium; vitest.config.ts). Ends with one plain line: "N passed, N failed".
// Extra arguments go to vitest (e.g. `--project services`, a file name). Before that last line it says where
// the time went: each phase's wall time, the set-up's share and the costliest files (by CPU) (tests/setup/timing-reporter.ts).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Node keeps the code it compiled on disk (NODE_COMPILE_CACHE): the suite starts about a thousand Node processes (its
// files, web servers, CLIs, workers, runners, targets), each compiling the same modules; with the cache a bundled
// CLI's start took 0.8 s of CPU instead of 1.0 s, and a web server's 2.7 s instead of 3.2 s (docs/testing.md).
const env = {
  ...process.env,
  NEXT_TELEMETRY_DISABLED: "1",
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(root, ".data/node-compile-cache"),
};
const started = Date.now();
/** Wall seconds of each phase, in order. */
const phases = [];
const timed = (name, run) => {
  const t = Date.now();
  const r = run();
  phases.push([name, (Date.now() - t) / 1000]);
  return r;
};

// `--no-checks` (test:stress, test:changed): the suites alone, without the lint and type check before them.
const args = process.argv.slice(2);
const checks = args.includes("--no-checks") ? [] : ["lint", "typecheck", "check:licences"];
const vitestArgs = args.filter((a) => a !== "--no-checks");

for (const check of checks) {
  const r = timed(check, () => spawnSync("npm", ["run", check, "--silent"], { cwd: root, stdio: "inherit", env }));
  if (r.status !== 0) {
    console.log(`npm run ${check} failed (exit ${r.status ?? r.signal}): fix it first; the test suites did not run`);
    process.exit(1);
  }
}

const report = path.join(root, ".data/test-report.json");
const timings = path.join(root, ".data/test-timings.json");
mkdirSync(path.dirname(report), { recursive: true });
for (const f of [report, timings, ...globalSetupFiles()]) rmSync(f, { force: true });

const cpuBefore = cpuTicks();
const r = timed("vitest", () =>
  spawnSync(
    "npx",
    [
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
      "--reporter=./tests/setup/timing-reporter.ts",
      ...vitestArgs,
    ],
    { cwd: root, stdio: "inherit", env },
  ),
);
printTimings(cpuBefore && cpuTicks());

let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, "utf8"));
  passed = json.numPassedTests ?? 0;
  failed =
    (json.numFailedTests ?? 0) +
    (json.testResults ?? []).filter((f) => f.status === "failed" && (f.assertionResults ?? []).length === 0).length;
} else {
  failed = 1; // the runner itself failed before reporting
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(r.status === 0 && failed === 0 ? 0 : 1);

/** What each project's global set-up wrote (tests/setup/services.ts): its seconds and what they went to. */
function globalSetupFiles() {
  return ["services", "own-process"].map((p) => path.join(root, `.data/test-global-setup-${p}.json`));
}

/** The machine's CPU ticks so far, busy and all (Linux /proc/stat); null elsewhere. */
function cpuTicks() {
  try {
    const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
    const idle = fields[3] + fields[4]; // idle + iowait
    return { busy: fields.reduce((a, b) => a + b, 0) - idle, all: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/** `cpuAfter`: the machine's CPU ticks when vitest ended, for how busy the cores were meanwhile (are more slots worth it?). */
function printTimings(cpuAfter) {
  const fmt = (s) => (s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${s.toFixed(1)} s`);
  console.log(`\nwall time ${fmt((Date.now() - started) / 1000)}: ${phases.map(([n, s]) => `${n} ${fmt(s)}`).join(", ")}`);
  if (cpuBefore && cpuAfter && cpuAfter.all > cpuBefore.all)
    console.log(
      `CPU busy during vitest: ${Math.round((100 * (cpuAfter.busy - cpuBefore.busy)) / (cpuAfter.all - cpuBefore.all))}% of ${os.cpus().length} cores`,
    );
  for (const f of globalSetupFiles().filter((g) => existsSync(g))) {
    const g = JSON.parse(readFileSync(f, "utf8"));
    console.log(`global set-up of ${g.project}: ${fmt(g.seconds)} (${g.parts.map(([n, s]) => `${n} ${fmt(s)}`).join(", ")})`);
  }
  if (!existsSync(timings)) return;
  const rows = JSON.parse(readFileSync(timings, "utf8"));
  const setup = rows.reduce((s, f) => s + f.setupSeconds, 0);
  const total = rows.reduce((s, f) => s + f.setupSeconds + f.collectSeconds + f.testSeconds, 0);
  console.log(
    `${rows.length} files: ${fmt(total)} summed over the parallel workers, of which per-file set-up (database, worker, web server) ${fmt(setup)} (${Math.round((100 * setup) / (total || 1))}%)`,
  );
  // CPU, where the files noted it: the suite is CPU-bound, so a file's cost to the others is its CPU, not its wall time.
  const cpuRows = rows.filter((f) => f.cpuSeconds != null);
  if (cpuRows.length > 0)
    console.log(
      `CPU of the ${cpuRows.length} files with services (each file's process and all it started): ${fmt(cpuRows.reduce((s, f) => s + f.cpuSeconds, 0))}`,
    );
  const slowest = rows
    .map((f) => ({ ...f, all: f.setupSeconds + f.collectSeconds + f.testSeconds }))
    .sort((a, b) => (b.cpuSeconds ?? b.all) - (a.cpuSeconds ?? a.all))
    .slice(0, 15);
  console.log("costliest files (seconds: CPU of the file and all it started; wall = set-up + import + tests):");
  for (const f of slowest)
    console.log(
      `  CPU ${(f.cpuSeconds == null ? "-" : f.cpuSeconds.toFixed(0)).padStart(4)}  wall ${f.all.toFixed(0).padStart(4)} (set-up ${f.setupSeconds.toFixed(0).padStart(3)})  ${f.project.padEnd(11)} ${f.file}${f.ok ? "" : "  FAILED"}`,
    );
}
