#!/usr/bin/env node
// Fails when one of core's concept folders imports from a folder above it (run by `npm run lint`).
// The rule (docs/architecture.md, "Core's folders"): packages/core/src/<folder>/ are layers in the order of LAYERS,
// lowest first; a file imports only from its own folder and from folders below it, never from a folder above, from
// core's index, or from a file at src/'s root (those compose the folders: they are the top). A new folder gets its
// place in LAYERS, below everything that imports it. Why: an import that climbs back up ties two folders into one
// (neither can be read, tested or moved without the other), and a circle between folders is only one file away.
// `node scripts/check-core-layers.mjs [core's src folder]` checks another copy (e.g. an old commit's, extracted).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** Lowest first: a folder may import from the folders before it in this list. */
export const LAYERS = [
  "names",
  "charts",
  "histograms",
  "windows",
  "workloads",
  "cost",
  "load-hosts",
  "shares",
  "runs",
  "metrics",
  "statistics",
  "series",
  "targets",
  "kinds",
  "studies",
  "workspaces",
  "k6",
  "compare",
  "schedules",
  "notifications",
  "exports",
];

const root = path.resolve(import.meta.dirname, "..");
const src = path.resolve(process.argv[2] ?? path.join(root, "packages/core/src"));
const SOURCE = /\.(m|c)?tsx?$/;
// import x from "s", import type x from "s", export { x } from "s", import "s", import("s")
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.[^"']*)["']/g;

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (SOURCE.test(e.name)) yield p;
  }
}

const folders = readdirSync(src).filter((n) => statSync(path.join(src, n)).isDirectory());

/** The concept folder an import under src/ resolves into (a file in it, or its index), or null for src/'s root (the index, stored-json.ts...). */
const folderOf = (to) => {
  const [first, ...rest] = path.relative(src, to).split(path.sep);
  return rest.length > 0 || folders.includes(first) ? first : null;
};

const offences = [];
for (const folder of folders.filter((f) => !LAYERS.includes(f)))
  offences.push(`${folder}/: a concept folder with no place in LAYERS (scripts/check-core-layers.mjs): put it below what imports it`);
for (const folder of folders) {
  const rank = LAYERS.indexOf(folder);
  for (const file of files(path.join(src, folder))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(SPECIFIER)) {
      const to = path.resolve(path.dirname(file), m[1]);
      if (!(to + path.sep).startsWith(src + path.sep) && to !== src) continue;
      const toFolder = to === src ? null : folderOf(to);
      if (toFolder === folder) continue;
      const line = text.slice(0, m.index).split("\n").length;
      const where = `${path.relative(src, file)}:${line}: imports ${m[1]}`;
      if (toFolder === null) offences.push(`${where} (core's index or a root file: those compose the folders)`);
      else if (rank !== -1 && LAYERS.indexOf(toFolder) > rank) offences.push(`${where} (${toFolder}/ is above ${folder}/)`);
    }
  }
}

if (offences.length) {
  console.error(`${offences.length} upward import(s) between core's folders (the order is LAYERS in scripts/check-core-layers.mjs):`);
  for (const o of offences) console.error(`  ${o}`);
  process.exit(1);
}
console.log(`check-core-layers: core's ${folders.length} folders import only downwards`);
