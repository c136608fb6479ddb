// `npm run test:changed [<git ref>]`: the test files a change touches, without the lint and type check. The change
// is the files changed since <ref> (default: the uncommitted ones, against HEAD) and the files git does not track yet.
// A test is touched when it is one of them or imports one (vitest's module graph, `vitest list --changed`); the
// browser files also when a web page or feature they drive over HTTP changed, since they never import it: a changed
// apps/web/{app,features}/<name>/... picks the web app's tests whose file name starts with <name> (singular or
// plural: runs/ picks run-page.e2e, studies/ study-tables.e2e). docs/testing.md.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const base = process.argv.slice(2).find((a) => !a.startsWith("-")) ?? "HEAD";
const passOn = process.argv.slice(2).filter((a) => a.startsWith("-"));

const git = (...args) => {
  const r = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  if (r.status !== 0) {
    console.error(`git ${args.join(" ")} failed: ${r.stderr.trim()}`);
    process.exit(2);
  }
  return r.stdout.split("\n").filter(Boolean);
};
const changed = [...git("diff", "--name-only", base), ...git("ls-files", "--others", "--exclude-standard")];
if (changed.length === 0) {
  console.log(`test:changed: nothing changed since ${base}; no test to run`);
  process.exit(0);
}

const listed = spawnSync("npx", ["vitest", "list", "--changed", base, "--filesOnly", "--json"], {
  cwd: root,
  encoding: "utf8",
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
});
if (listed.status !== 0) {
  console.error(`vitest list failed:\n${listed.stderr}`);
  process.exit(2);
}
const files = new Set(JSON.parse(listed.stdout).map((f) => path.relative(root, f.file)));

// The web app's pages and features, reached by its browser tests over HTTP.
const webTests = readdirSync(path.join(root, "apps/web/test")).filter((f) => f.endsWith(".test.ts"));
for (const file of changed) {
  const m = /^apps\/web\/(?:app|features)\/(?:\(.*?\)\/)?([a-z0-9-]+)\//.exec(file);
  if (!m) continue;
  const name = m[1];
  const singular = name.replace(/ies$/, "y").replace(/s$/, "");
  for (const t of webTests) if (t.startsWith(name) || t.startsWith(singular)) files.add(`apps/web/test/${t}`);
}

if (files.size === 0) {
  console.log(`test:changed: ${changed.length} file(s) changed since ${base}, and no test imports or drives any of them`);
  process.exit(0);
}
const sorted = [...files].sort();
console.log(`test:changed: ${changed.length} file(s) changed since ${base}; ${sorted.length} test file(s):`);
for (const f of sorted) console.log(`  ${f}`);
const r = spawnSync(process.execPath, [path.join(root, "scripts/test.mjs"), "--no-checks", ...passOn, ...sorted], {
  cwd: root,
  stdio: "inherit",
});
process.exit(r.status ?? 1);
