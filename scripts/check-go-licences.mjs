// Lists the licence of every Go module linked into each Go program opsbench builds (go-licenses, pinned in
// scripts/go-licenses/go.mod, built into .tools/ on first use) and fails when one is copyleft: nothing opsbench
// builds, links or ships may be under the GPL, LGPL or AGPL (docs/dependencies.md). go-licenses classifies each
// module's licence file; "restricted" (GPL, LGPL), "forbidden" (AGPL and the like) and "unknown" are refused,
// MPL-2.0 ("reciprocal") and the permissive ones pass.
//   node scripts/check-go-licences.mjs [--quiet] [--only NAME]     (npm run check:licences)
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const toolModule = path.join(root, "scripts/go-licenses");

/** The Go programs opsbench builds: the module folder and the main package. Test-only tools are listed too. */
export const GO_PROGRAMS = [
  { name: "opsbench-engine", dir: "engine", pkg: "./cmd/opsbench-engine" },
  { name: "echo-go (benchapp)", dir: "benchapps/echo/go", pkg: "." },
  { name: "k6-json-replay (test stand-in for a stock k6)", dir: "tests/stand-ins/k6-json-replay", pkg: "." },
  { name: "sandbox-writer (test stand-in for a k6 writing files)", dir: "tests/stand-ins/sandbox-writer", pkg: "." },
];

/** go-licenses, built from its pinned module (verified against scripts/go-licenses/go.sum), reused while there. */
export function goLicensesBinary() {
  const hash = createHash("sha256")
    .update(readFileSync(path.join(toolModule, "go.sum")))
    .digest("hex")
    .slice(0, 12);
  const binary = path.join(root, ".tools", `go-licenses-${hash}`, "go-licenses");
  if (existsSync(binary)) return binary;
  mkdirSync(path.dirname(binary), { recursive: true });
  const tmp = `${binary}.tmp-${process.pid}`;
  const r = spawnSync("go", ["build", "-o", tmp, "github.com/google/go-licenses"], {
    cwd: toolModule,
    encoding: "utf8",
    env: { ...process.env, CGO_ENABLED: "0" },
  });
  if (r.status !== 0) throw new Error(`building go-licenses failed: ${r.stderr}`);
  renameSync(tmp, binary);
  return binary;
}

/** The refused licence types of go-licenses' classification. */
const DISALLOWED = "forbidden,restricted,unknown";

/**
 * Licences of one program's linked modules: rows of [module, licence] and the check's verdict.
 * `dir` is relative to the repository, or absolute (a test's fixture).
 */
export function checkProgram({ dir, pkg }) {
  const bin = goLicensesBinary();
  const cwd = path.resolve(root, dir);
  // The program's own module carries no licence file of its own: it is ours, not a dependency.
  const own = /^module\s+(\S+)/m.exec(readFileSync(path.join(cwd, "go.mod"), "utf8"))?.[1];
  // Offline machines cannot look up source URLs (a warning only); the classification reads the module's own files.
  // -mod=readonly (Go's default): the check never rewrites a program's go.mod (the engine's build key hashes it).
  const env = { ...process.env };
  const report = spawnSync(bin, ["report", pkg, `--ignore=${own}`], { cwd, encoding: "utf8", env });
  const rows = report.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const cells = line.split(",");
      return { module: cells[0], licence: cells.at(-1) };
    });
  const check = spawnSync(bin, ["check", pkg, `--ignore=${own}`, `--disallowed_types=${DISALLOWED}`], { cwd, encoding: "utf8", env });
  const refusals = check.stderr
    .split("\n")
    .filter((l) => /Not allowed|forbidden|restricted|unknown/i.test(l) && !/Error discovering license URL/.test(l))
    .map((l) => l.replace(/^[EWI]\d+ [\d:.]+\s+\d+ [\w.]+:\d+\] /, ""));
  return { rows, ok: check.status === 0 && report.status === 0, refusals, error: report.status === 0 ? "" : report.stderr.slice(-2000) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quiet = process.argv.includes("--quiet");
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
  let failed = false;
  for (const program of GO_PROGRAMS.filter((p) => !only || p.name === only)) {
    const r = checkProgram(program);
    if (!quiet || !r.ok) {
      console.log(`${program.name} (${program.dir}): ${r.rows.length} module(s)`);
      for (const row of r.rows) console.log(`  ${row.licence.padEnd(14)} ${row.module}`);
    }
    if (!r.ok) {
      failed = true;
      console.log(`  REFUSED: ${r.refusals.join("; ") || r.error || "go-licenses check failed"}`);
    }
  }
  console.log(
    failed
      ? "licence check: a copyleft or unclassified licence is linked (see above)"
      : "licence check: every linked Go module is permissively licensed",
  );
  process.exit(failed ? 1 : 0);
}
