// `npm run test:stress`: the services and own-process projects with a CPU-hogging process per core beside them,
// the busy machine a CI runner or a developer's laptop often is. A test that fails here and not in `npm test`
// judges the machine's speed instead of what it says it tests (docs/testing.md). Extra arguments go to vitest
// (e.g. a file name); `--hogs N` sets how many hogs (default: one per core).
import { spawn, spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const hogsAt = args.indexOf("--hogs");
const hogCount = hogsAt >= 0 ? Number(args[hogsAt + 1]) : os.availableParallelism();
if (!Number.isInteger(hogCount) || hogCount < 0) {
  console.error(`--hogs takes a whole number of processes, got "${args[hogsAt + 1]}"`);
  process.exit(2);
}
const vitestArgs = hogsAt >= 0 ? [...args.slice(0, hogsAt), ...args.slice(hogsAt + 2)] : args;

// A busy loop each, at the tests' own priority: they take the cores as a build or another job would.
const hogs = Array.from({ length: hogCount }, () => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
const stopHogs = () => {
  for (const h of hogs) h.kill("SIGKILL");
};
process.on("exit", stopHogs);
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    stopHogs();
    process.exit(130);
  });
console.log(`test:stress: ${hogCount} CPU-hogging process${hogCount === 1 ? "" : "es"} beside the services and own-process projects`);

const projects = vitestArgs.some((a) => a.startsWith("--project")) ? [] : ["--project", "services", "--project", "own-process"];
const r = spawnSync(process.execPath, [path.join(root, "scripts/test.mjs"), "--no-checks", ...projects, ...vitestArgs], {
  cwd: root,
  stdio: "inherit",
});
stopHogs();
process.exit(r.status ?? 1);
