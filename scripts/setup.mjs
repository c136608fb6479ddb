// One-command set-up for a fresh machine: npm dependencies, the Prisma client, the
// pinned k6, Postgres and Redis on loopback (from the distribution's packages when
// missing), the benchapps that need a build, and the database schema. Safe to run
// again: it reuses what is there.
//   node scripts/setup.mjs [--for demo|test]
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureK6 } from "../apps/worker/k6-build/build.mjs";
import { localServices } from "./local-services.mjs";
import { buildBenchapps } from "../benchapps/build.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const purpose = process.argv.includes("--for") ? process.argv[process.argv.indexOf("--for") + 1] : "demo";
const log = (msg) => console.log(`setup: ${msg}`);
const isRoot = process.getuid?.() === 0;

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status})`);
}
const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
const fileHash = (files) => {
  const h = createHash("sha256");
  for (const f of files) if (existsSync(f)) h.update(readFileSync(f));
  return h.digest("hex");
};

// 1. npm dependencies, reinstalled when package-lock.json changes.
function ensureNpm() {
  const stamp = path.join(root, "node_modules/.opsbench-lock-hash");
  const want = fileHash([path.join(root, "package-lock.json"), path.join(root, "package.json")]);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want) return;
  log("installing npm dependencies...");
  run("npm", ["install", "--no-audit", "--no-fund"]);
  writeFileSync(stamp, want);
}

// 2. Debian packages for the services (and Chromium for the browser tests).
function ensureSystemPackages() {
  const missing = [];
  if (!localServices.postgresBin("postgres")) missing.push("postgresql");
  if (!has("redis-server")) missing.push("redis-server");
  // The k6 sandbox (docs/security.md): bubblewrap for its filesystem view, nftables for a network reaching only the target.
  // Its network part needs root, so without root they are not required (the worker then refuses runs unless allowed, and flags them).
  if (isRoot && !has("bwrap")) missing.push("bubblewrap");
  if (isRoot && !has("nft")) missing.push("nftables");
  if (purpose === "test" && !existsSync("/usr/bin/chromium")) missing.push("chromium");
  if (missing.length === 0) return;
  if (!isRoot || !has("apt-get")) {
    throw new Error(
      `missing system packages: ${missing.join(", ")}. Install them (e.g. sudo apt-get install -y ${missing.join(" ")}) or set DATABASE_URL and REDIS_URL to servers of your own.`,
    );
  }
  log(`installing ${missing.join(", ")} from the distribution's packages...`);
  run("apt-get", ["update"]);
  run("apt-get", ["install", "-y", "--no-install-recommends", ...missing], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
}

// 3. The Prisma client, regenerated when the schema changes.
function ensurePrismaClient() {
  const out = path.join(root, "packages/db/src/generated/prisma");
  const stamp = path.join(out, ".schema-hash");
  const want = fileHash([path.join(root, "prisma/schema.prisma")]);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want) return;
  log("generating the Prisma client...");
  run("npm", ["run", "generate", "-w", "@opsbench/db", "--silent"]);
  writeFileSync(stamp, want);
}

// 4. Benchapps with a build step (Go binaries, the Flask app's virtualenv with its
// PyPI requirements) into .tools/benchapps; each rebuilt only when missing or changed.
function ensureBenchappBuilds() {
  buildBenchapps({ log });
}

async function main() {
  ensureSystemPackages();
  ensureNpm();
  ensurePrismaClient();
  ensureBenchappBuilds();
  const k6 = ensureK6({ log });
  log(`k6 ${k6.version}: ${path.relative(root, k6.binary)}`);
  const env = await localServices.start({ log });
  const databases = purpose === "test" ? [env.testDatabaseUrl] : [env.databaseUrl];
  for (const url of databases) {
    run("npx", ["tsx", "packages/db/src/migrate-cli.ts"], { env: { ...process.env, DATABASE_URL: url } });
  }
  log("ready");
}

main().catch((err) => {
  console.error(`setup failed: ${err.message}`);
  process.exit(1);
});
