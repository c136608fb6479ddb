// npm run bench:compare: where a comparison's time goes at real sizes. Imports (through
// the same path as `opsbench import k6`) 4 runs of 30 minutes and 4 runs of 24 hours at
// 150 req/s from generated k6 CSV files, then times the compare page, the comparisons API,
// the run page and an export against a `next start` of the production build, cold (the
// stored comparisons forgotten before each request) and warm, and prints p50 / p95 and
// the bytes sent. The generated files (.data/bench-compare) and the bench's own database
// (<DATABASE_URL's name>_bench_compare) are kept, so a rerun only times. `--web URL` times a web
// app already running against that database instead of starting one; `--only 30` or `--only 24`
// one of the two sets.
import { once } from "node:events";
import { createWriteStream, existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { createGzip } from "node:zlib";
import {
  applyMigrations,
  createDb,
  createImportedRun,
  defaultMigrationsDir,
  defaultWorkspaceId,
  forgetComparisons,
  type Db,
} from "@opsbench/db";
import { loadEnv, repoRoot } from "../src/env";
import { startWeb } from "../src/processes";
import { readK6File } from "../src/read-k6-file";

const RATE = 150;
const REQUESTS_PER_CASE = 20;
/** A case that is this slow stops early (after at least MIN_REQUESTS): the code before stored rollups took minutes a request at 24 h. */
const CASE_BUDGET_MS = 60_000;
const MIN_REQUESTS = 2;
const dataDir = path.join(repoRoot, ".data/bench-compare");
const T0 = Date.UTC(2026, 0, 5, 8, 0, 0) / 1000;

/**
 * One k6 CSV file (gzip) of a constant-rate run: `seconds` x RATE requests to two
 * endpoints, lognormal latencies with a slow spike at two thirds of the run and a few 5xx.
 */
async function generate(file: string, seconds: number, seed: number): Promise<void> {
  if (existsSync(file)) return;
  mkdirSync(path.dirname(file), { recursive: true });
  // mulberry32: the same files on every machine.
  let state = seed >>> 0;
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const tmp = `${file}.tmp`;
  const gzip = createGzip({ level: 1 });
  const out = gzip.pipe(createWriteStream(tmp));
  gzip.write("metric_name,timestamp,metric_value,name,status,expected_response\n");
  const spike = [Math.floor(seconds * 0.66), Math.floor(seconds * 0.66) + 60];
  const base = 8 + seed;
  for (let s = 0; s < seconds; s++) {
    const ts = T0 + s;
    const slow = s >= spike[0]! && s < spike[1]! ? 6 : 1;
    let chunk = `vus,${ts},12,,,\n`;
    for (let r = 0; r < RATE; r++) {
      const name = r % 3 === 0 ? "POST /orders" : "GET /items";
      const ms = base * slow * Math.exp(0.35 * normal());
      const status = rand() < 0.002 ? 503 : 200;
      chunk += `http_req_duration,${ts},${ms.toFixed(3)},${name},${status},${status < 400}\n`;
    }
    if (!gzip.write(chunk)) await once(gzip, "drain");
  }
  gzip.end();
  await once(out, "finish");
  renameSync(tmp, file);
}

/** The bench's own database next to DATABASE_URL's, migrated. */
async function benchDatabase(url: string): Promise<string> {
  const u = new URL(url);
  const name = `${u.pathname.slice(1)}_bench_compare`;
  const maintenance = new URL(url);
  maintenance.pathname = "/postgres";
  const admin = createDb(maintenance.toString(), { max: 1 });
  try {
    const found = await admin.$queryRaw<unknown[]>`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (found.length === 0) await admin.$executeRawUnsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.$disconnect();
  }
  u.pathname = `/${name}`;
  await applyMigrations(u.toString(), defaultMigrationsDir());
  return u.toString();
}

/** `copies` runs imported from `file` (read once), importing those an earlier bench did not. */
async function imported(db: Db, file: string, copies: number): Promise<string[]> {
  const names = Array.from({ length: copies }, (_, k) => `bench ${path.basename(file)}${k ? ` #${k + 1}` : ""}`);
  const found = await db.run.findMany({ where: { name: { in: names }, status: "SUCCEEDED" }, select: { id: true, name: true } });
  const ids = new Map(found.map((r) => [r.name!, r.id]));
  const missing = names.filter((n) => !ids.has(n));
  if (missing.length) {
    const t = performance.now();
    const r = (await readK6File(file)).result;
    console.log(`  read ${path.basename(file)}: ${r.requests} requests in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    for (const name of missing) {
      const t2 = performance.now();
      const run = await createImportedRun(db, await defaultWorkspaceId(db), {
        name,
        loadStartedAt: new Date(r.loadWindow!.startMs),
        loadFinishedAt: new Date(r.loadWindow!.endMs),
        durationSource: r.loadWindow!.source,
        cells: r.cells,
        load: r.load,
        events: [{ level: "info", message: `imported from ${path.basename(file)} (bench:compare)` }],
      });
      ids.set(name, run.id);
      console.log(`  stored "${name}" in ${((performance.now() - t2) / 1000).toFixed(1)} s`);
    }
  }
  return names.map((n) => ids.get(n)!);
}

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
};

interface Case {
  what: string;
  url: string;
  init?: RequestInit;
}

async function time(db: Db, c: Case, cold: boolean) {
  const ms: number[] = [];
  let bytes = 0;
  const began = performance.now();
  for (let i = 0; i < REQUESTS_PER_CASE; i++) {
    if (i >= MIN_REQUESTS && performance.now() - began > CASE_BUDGET_MS) break;
    if (cold) await forgetComparisons(db);
    const t = performance.now();
    const res = await fetch(c.url, c.init);
    const body = new Uint8Array(await res.arrayBuffer());
    ms.push(performance.now() - t);
    if (!res.ok) throw new Error(`${c.what}: HTTP ${res.status} ${new TextDecoder().decode(body).slice(0, 300)}`);
    bytes = body.length;
  }
  return { n: ms.length, p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), bytes };
}

async function main() {
  const env = loadEnv();
  // --only 30 (or 24): time one of the two sets.
  const args = parseArgs({ options: { web: { type: "string" }, only: { type: "string" } } }).values;
  const { only, web: given } = args;
  const dbUrl = await benchDatabase(env.DATABASE_URL);
  const db = createDb(dbUrl, { max: 2 });
  try {
    console.log(`bench:compare (database ${new URL(dbUrl).pathname.slice(1)}, files in ${path.relative(process.cwd(), dataDir)})`);
    const sizes = [
      { label: "4 x 30 min", seconds: 30 * 60, files: 4 },
      // One 24 h file (13 million lines take minutes to read), imported as 4 runs from one read.
      { label: "4 x 24 h", seconds: 24 * 3600, files: 1 },
    ].filter((s) => !only || s.label.includes(only));
    const sets: Array<{ label: string; ids: string[] }> = [];
    for (const size of sizes) {
      const ids: string[] = [];
      for (let i = 0; i < size.files; i++) {
        const file = path.join(dataDir, `${size.seconds}s-${RATE}rps-${i + 1}.csv.gz`);
        if (!existsSync(file)) {
          const t = performance.now();
          await generate(file, size.seconds, i + 1);
          console.log(`  generated ${path.basename(file)} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
        }
        ids.push(...(await imported(db, file, 4 / size.files)));
      }
      sets.push({ label: size.label, ids });
    }

    // --web URL times a server already running against the bench's database (e.g. an older build); else one is started.
    const redis = new URL(env.REDIS_URL);
    redis.searchParams.set("prefix", "bench-compare");
    const port = 20000 + Math.floor(Math.random() * 20000);
    const web = given
      ? { url: given.replace(/\/+$/, ""), managed: null }
      : await startWeb({ ...env, DATABASE_URL: dbUrl, REDIS_URL: redis.toString(), OPSBENCH_WEB_PORT: port, OPSBENCH_AUTH: "off" }, (m) =>
          console.log(`  ${m}`),
        );
    try {
      const rows: string[][] = [];
      for (const set of sets) {
        const query = set.ids.map((id, i) => `g=${encodeURIComponent(`run ${i + 1}`)}:${id}`).join("&");
        const cases: Case[] = [
          { what: "compare page", url: `${web.url}/compare?${query}` },
          {
            what: "POST /api/v1/comparisons",
            url: `${web.url}/api/v1/comparisons`,
            init: {
              method: "POST",
              headers: { "content-type": "application/json", origin: web.url },
              body: JSON.stringify({ groups: set.ids.map((id, i) => ({ label: `run ${i + 1}`, runIds: [id] })) }),
            },
          },
          { what: "run page (1st run)", url: `${web.url}/runs/${set.ids[0]}` },
          { what: "export series CSV", url: `${web.url}/api/v1/comparisons/export?format=csv&table=series&${query}` },
        ];
        // One request first, so the first timed one does not pay for Next loading the route.
        for (const c of cases) await fetch(c.url, c.init).then((r) => r.arrayBuffer());
        for (const c of cases)
          for (const cold of [true, false]) {
            const r = await time(db, c, cold);
            rows.push([
              set.label,
              c.what,
              cold ? "cold" : "warm",
              String(r.n),
              r.p50.toFixed(0),
              r.p95.toFixed(0),
              (r.bytes / 1024).toFixed(1),
            ]);
            console.log(`  ${rows.at(-1)!.join("  ")}`);
          }
      }
      const head = ["runs", "request", "cache", "n", "p50 ms", "p95 ms", "KB sent"];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      console.log(
        `\n${REQUESTS_PER_CASE} requests each (fewer, n, where a case took over ${CASE_BUDGET_MS / 1000} s); cold = stored comparisons forgotten before each request`,
      );
      for (const r of [head, ...rows]) console.log(r.map((v, i) => (i < 3 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join("  "));
    } finally {
      await web.managed?.stop();
    }
  } finally {
    await db.$disconnect();
  }
}

await main();
