// Runs the checks on every change, fastest first: lint, type check, the Go licence check, then the
// three vitest projects (unit; integration and browser against real Postgres,
// Redis, k6 and Chromium; vitest.config.ts). Ends with one plain line: "N passed, N failed".
// Extra arguments go to vitest (e.g. `--project integration`, a file name).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

for (const check of ["lint", "typecheck", "check:licences"]) {
  const r = spawnSync("npm", ["run", check, "--silent"], { cwd: root, stdio: "inherit", env });
  if (r.status !== 0) {
    console.log(`npm run ${check} failed (exit ${r.status ?? r.signal}): fix it first; the test suites did not run`);
    process.exit(1);
  }
}

const report = path.join(root, ".data/test-report.json");
mkdirSync(path.dirname(report), { recursive: true });
rmSync(report, { force: true });

const r = spawnSync(
  "npx",
  ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit", env },
);

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
