// `npm run test:durations`: writes the seconds each file of the last `npm test` run took (.data/test-timings.json,
// tests/setup/timing-reporter.ts) into tests/setup/file-durations.json, the table the suite's file order reads
// (tests/setup/file-order.ts: longest first). Files the last run did not include keep their old figure; files that no
// longer exist are dropped. Commit the result after a full run on a quiet machine.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const timingsFile = path.join(root, ".data/test-timings.json");
const durationsFile = path.join(root, "tests/setup/file-durations.json");

if (!existsSync(timingsFile)) {
  console.error(`no ${path.relative(root, timingsFile)}: run \`npm test\` (or some test files) first`);
  process.exit(2);
}
const timings = JSON.parse(readFileSync(timingsFile, "utf8"));
const table = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, "utf8")) : {};
let updated = 0;
for (const t of timings) {
  // Its set-up counts too: a web app and a worker are part of what the file costs. (A file that needs the machine
  // alone has its wait in its set-up; the order puts such files first whatever their figure.)
  table[t.file] = Math.round((t.setupSeconds + t.collectSeconds + t.testSeconds) * 10) / 10;
  updated++;
}
const kept = Object.fromEntries(
  Object.entries(table)
    .filter(([file]) => existsSync(path.join(root, file)))
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(durationsFile, `${JSON.stringify(kept, null, 1)}\n`);
console.log(`${path.relative(root, durationsFile)}: ${updated} files from the last run, ${Object.keys(kept).length} in all`);
