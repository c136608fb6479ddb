#!/usr/bin/env node
// Fails on a break of two house rules that neither biome nor tsc can see (run by `npm run lint`):
//   - no `as unknown as`: a double cast tells the compiler to stop checking; give the value a real type instead
//     (a generic, a type guard, a schema's parse, a narrower declared type);
//   - Prisma belongs to packages/db: no file elsewhere imports @prisma/* or db's generated client, and no app's or
//     package's own code calls the client (`db.<model>.<query>(`, `db.$<raw>`); it calls a function of @opsbench/db.
//     Tests and benchmarks may read the database directly: they check what the code wrote.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const SCANNED = ["apps", "packages", "tests", "scripts", "engine", "benchapps"];
const SKIP = new Set(["node_modules", ".next", "dist", ".turbo", ".data", "generated"]);
const SOURCE = /\.(m|c)?(t|j)sx?$/;
const self = path.relative(root, import.meta.filename);

const DOUBLE_CAST = /\bas\s+unknown\s+as\b/g;
// import x from "s", export { x } from "s", import("s")
const PRISMA_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](@prisma\/[^"']*|[^"']*\/generated\/prisma[^"']*)["']/g;
const QUERY =
  "findMany|findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany|count|aggregate|groupBy";
const CLIENT_CALL = new RegExp(
  `\\b(?:db|prisma|getDb\\(\\))\\s*\\.\\s*(?:\\$(?:queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe|transaction)\\b|[a-z]\\w*\\s*\\.\\s*(?:${QUERY})\\s*\\()`,
  "g",
);

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (SKIP.has(e.name) || e.name.startsWith(".next")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (SOURCE.test(e.name)) yield p;
  }
}

const inDb = (file) => file.startsWith("packages/db/");
/** Code that ships: an app's or a package's own files, not its tests or benchmarks. */
const shipped = (file) => /^(apps|packages)\//.test(file) && !/\/(test|bench)\//.test(file);

const offences = [];
const lineOf = (text, index) => text.slice(0, index).split("\n").length;
for (const top of SCANNED) {
  for (const abs of files(path.join(root, top))) {
    const file = path.relative(root, abs);
    if (file === self) continue;
    const text = readFileSync(abs, "utf8");
    for (const m of text.matchAll(DOUBLE_CAST))
      offences.push(`${file}:${lineOf(text, m.index)}: \`as unknown as\` (give the value a real type)`);
    if (inDb(file)) continue;
    for (const m of text.matchAll(PRISMA_IMPORT))
      offences.push(`${file}:${lineOf(text, m.index)}: imports ${m[1]} (only packages/db uses Prisma)`);
    if (shipped(file))
      for (const m of text.matchAll(CLIENT_CALL))
        offences.push(
          `${file}:${lineOf(text, m.index)}: calls the Prisma client (\`${m[0].replace(/\s+/g, "")}\`): make it a function of packages/db`,
        );
  }
}

if (offences.length) {
  console.error(`${offences.length} break(s) of the house rules:`);
  for (const o of offences) console.error(`  ${o}`);
  process.exit(1);
}
console.log("check-house-rules: no `as unknown as`; Prisma only in packages/db");
