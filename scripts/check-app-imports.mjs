#!/usr/bin/env node
// Fails when a file outside apps/web/app/ imports from apps/web/app/ (run by `npm run lint`).
// Routes compose features (apps/web/features/) and shared UI (apps/web/components/); nothing leans on a route
// folder, so a page can move or go without breaking what it used. Biome's noRestrictedImports matches import
// strings, not the files they resolve to, so "../app/x" from lib/ and "../../web/app/x" from tests/ would slip by.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const web = path.join(root, "apps/web");
const appDir = path.join(web, "app") + path.sep;
const SCANNED = ["apps", "packages", "tests", "scripts", "benchapps"];
const SKIP = new Set(["node_modules", ".next", "dist", ".turbo", "generated"]);
const SOURCE = /\.(m|c)?(t|j)sx?$/;
// import x from "s", export { x } from "s", import "s", import("s"), require("s"), vi.mock("s")
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name) || e.name.startsWith(".next")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (SOURCE.test(e.name)) yield p;
  }
}

/** The absolute path an import names, or null for a package import. */
function target(file, spec) {
  if (spec.startsWith("@/")) return file.startsWith(web + path.sep) ? path.join(web, spec.slice(2)) : null;
  if (spec.startsWith(".")) return path.resolve(path.dirname(file), spec);
  return null;
}

const offences = [];
for (const top of SCANNED) {
  for (const file of files(path.join(root, top))) {
    if (file.startsWith(appDir)) continue;
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(SPECIFIER)) {
      const to = target(file, m[1]);
      if (to && (to + path.sep).startsWith(appDir)) {
        const line = text.slice(0, m.index).split("\n").length;
        offences.push(`${path.relative(root, file)}:${line}: imports ${m[1]}`);
      }
    }
  }
}

if (offences.length) {
  console.error(`${offences.length} import(s) of apps/web/app/ from outside it (move the code to features/, components/ or lib/):`);
  for (const o of offences) console.error(`  ${o}`);
  process.exit(1);
}
console.log("check-app-imports: no file outside apps/web/app/ imports from it");
