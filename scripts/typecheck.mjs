// `npm run typecheck`: every TypeScript project of the repository (each workspace, the tests, the engine's test
// files), checked by TypeScript 7's native compiler (the `typescript-native` alias), as many at once as there are
// cores. TypeScript 5 (`typescript`) stays for the tools that use its JavaScript API (Next's build, dpdm, the
// test-kind test); TypeScript 7 has no such API yet, and checks the whole repository in under a minute where
// TypeScript 5 took four (docs/testing.md). The web app's route types come from `next typegen` first.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsc = path.join(root, "node_modules/typescript-native/bin/tsc");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

const workspaces = ["apps", "packages"].flatMap((dir) =>
  readdirSync(path.join(root, dir))
    .map((name) => `${dir}/${name}`)
    .filter((p) => existsSync(path.join(root, p, "tsconfig.json"))),
);
const projects = [...workspaces, "tests", "engine"];

const typegen = spawnSync("npx", ["next", "typegen"], { cwd: path.join(root, "apps/web"), env, encoding: "utf8" });
if (typegen.status !== 0) {
  process.stdout.write(typegen.stdout + typegen.stderr);
  console.log(`next typegen failed (exit ${typegen.status ?? typegen.signal}): the web app's route types are missing`);
  process.exit(1);
}

/**
 * Checks one project; resolves to its compiler output, empty when it passed. Single-threaded, one project per core:
 * on 2 cores, that took 27 s where the compiler's own threads took 53 s.
 */
function check(project) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, "-p", project, "--noEmit", "--pretty", "false", "--singleThreaded"], { cwd: root, env });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("close", (code) => resolve(code === 0 ? "" : out || `tsc exited ${code}\n`));
  });
}

const failed = [];
const queue = [...projects];
const lanes = Array.from({ length: Math.max(1, os.availableParallelism()) }, async () => {
  for (let project = queue.shift(); project; project = queue.shift()) {
    const errors = await check(project);
    if (errors) failed.push([project, errors]);
  }
});
await Promise.all(lanes);

if (failed.length > 0) {
  // A shared file's error shows in every project that includes it: each line once.
  const lines = new Set(failed.flatMap(([, errors]) => errors.split("\n").filter(Boolean)));
  console.log([...lines].join("\n"));
  console.log(`\nthe type check failed in ${failed.map(([p]) => p).join(", ")}`);
  process.exit(1);
}
