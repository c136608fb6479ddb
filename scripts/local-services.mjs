// Postgres and Redis for one machine, on loopback only, with their data under
// .data/ (git-ignored). Skipped when DATABASE_URL / REDIS_URL name servers of
// your own. Used by scripts/setup.mjs; `node scripts/local-services.mjs stop` stops them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, chownSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.join(root, ".data");
const PG_PORT = Number(process.env.OPSBENCH_PG_PORT ?? 55432);
const REDIS_PORT = Number(process.env.OPSBENCH_REDIS_PORT ?? 56379);
const isRoot = process.getuid?.() === 0;

function postgresBin(name) {
  const base = "/usr/lib/postgresql";
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(path.join(base, v, "bin", name))) return path.join(base, v, "bin", name);
  }
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

function portOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

async function waitForPort(port, what, ms = 30_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start listening on 127.0.0.1:${port} within ${ms / 1000}s`);
}

// Postgres refuses to run as root: as root, run it as the distribution's postgres user.
function asPostgresUser(cmd, args) {
  const full = isRoot ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  const r = spawnSync(full[0], full[1], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

async function startPostgres(log) {
  const pgData = path.join(dataDir, "postgres");
  if (!(await portOpen(PG_PORT))) {
    if (!existsSync(path.join(pgData, "PG_VERSION"))) {
      mkdirSync(pgData, { recursive: true });
      if (isRoot) chownSync(pgData, uid("postgres"), gid("postgres"));
      log(`initialising a Postgres cluster in ${path.relative(root, pgData)}`);
      asPostgresUser(postgresBin("initdb"), ["-D", pgData, "--auth=trust", "--username=opsbench", "--encoding=UTF8", "--no-locale"]);
    }
    asPostgresUser(postgresBin("pg_ctl"), [
      "-D",
      pgData,
      "-l",
      path.join(pgData, "server.log"),
      "-w",
      "start",
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${PG_PORT} -c unix_socket_directories='' -c max_connections=200 -c fsync=off`,
    ]);
    await waitForPort(PG_PORT, "Postgres");
  }
  for (const db of ["opsbench", "opsbench_test"]) {
    const psql = postgresBin("psql");
    const args = ["-h", "127.0.0.1", "-p", String(PG_PORT), "-U", "opsbench", "-d", "postgres", "-tAc"];
    const exists = spawnSync(psql, [...args, `SELECT 1 FROM pg_database WHERE datname='${db}'`], { encoding: "utf8" });
    if (exists.status !== 0) throw new Error(`cannot reach Postgres on 127.0.0.1:${PG_PORT}: ${exists.stderr.trim()}`);
    if (exists.stdout.trim() !== "1") {
      const made = spawnSync(psql, [...args, `CREATE DATABASE ${db}`], { encoding: "utf8" });
      if (made.status !== 0) throw new Error(`cannot create the database ${db}: ${made.stderr.trim()}`);
      log(`created the database ${db}`);
    }
  }
  log(`Postgres on 127.0.0.1:${PG_PORT}`);
}

function uid(user) {
  return Number(spawnSync("id", ["-u", user], { encoding: "utf8" }).stdout.trim());
}
function gid(user) {
  return Number(spawnSync("id", ["-g", user], { encoding: "utf8" }).stdout.trim());
}

async function startRedis(log) {
  if (!(await portOpen(REDIS_PORT))) {
    const dir = path.join(dataDir, "redis");
    mkdirSync(dir, { recursive: true });
    const r = spawnSync(
      "redis-server",
      [
        "--port",
        String(REDIS_PORT),
        "--bind",
        "127.0.0.1",
        "--daemonize",
        "yes",
        "--dir",
        dir,
        "--pidfile",
        path.join(dir, "redis.pid"),
        "--logfile",
        path.join(dir, "redis.log"),
        "--save",
        "",
        "--appendonly",
        "no",
        "--maxmemory-policy",
        "noeviction",
      ],
      { encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`redis-server failed: ${r.stderr.trim()}`);
    await waitForPort(REDIS_PORT, "Redis");
  }
  log(`Redis on 127.0.0.1:${REDIS_PORT}`);
}

export const localServices = {
  postgresBin,
  async start({ log = console.log } = {}) {
    if (!process.env.DATABASE_URL) await startPostgres(log);
    if (!process.env.REDIS_URL) await startRedis(log);
    return {
      databaseUrl: process.env.DATABASE_URL ?? `postgresql://opsbench@127.0.0.1:${PG_PORT}/opsbench`,
      testDatabaseUrl: process.env.TEST_DATABASE_URL ?? `postgresql://opsbench@127.0.0.1:${PG_PORT}/opsbench_test`,
      redisUrl: process.env.REDIS_URL ?? `redis://127.0.0.1:${REDIS_PORT}/0`,
    };
  },
  stop() {
    const pgData = path.join(dataDir, "postgres");
    if (existsSync(path.join(pgData, "postmaster.pid"))) asPostgresUser(postgresBin("pg_ctl"), ["-D", pgData, "-m", "fast", "stop"]);
    spawnSync("redis-cli", ["-p", String(REDIS_PORT), "shutdown", "nosave"], { stdio: "ignore" });
  },
};

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "stop") localServices.stop();
