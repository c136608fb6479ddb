// Postgres and Redis for one machine, on loopback only, each with a password, with their data under
// .data/ (git-ignored). Skipped when DATABASE_URL / REDIS_URL name servers of
// your own. Used by scripts/setup.mjs; `node scripts/local-services.mjs stop` stops them.
// The passwords are what keeps another user of the machine out: loopback is shared by every local account
// (packages/core/src/local-services.ts reads them for the processes that connect).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, chownSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  LOCAL_POSTGRES_USER,
  localPorts,
  localDatabaseUrl as sharedDatabaseUrl,
  localPostgresPassword as sharedPostgresPassword,
  localRedisPassword as sharedRedisPassword,
  localRedisUrl as sharedRedisUrl,
  withSecretFiles,
} from "../packages/core/src/local-settings.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.join(root, ".data");
// Ports, URLs and secret files: one module (packages/core/src/local-settings.mjs) the CLI, worker and web app read too.
const { postgres: PG_PORT, redis: REDIS_PORT } = localPorts(process.env);
const isRoot = process.getuid?.() === 0;
const redisDir = path.join(dataDir, "redis");
const redisPasswordFile = path.join(redisDir, "password");
const pgData = path.join(dataDir, "postgres");
const pgPasswordFile = path.join(dataDir, "postgres-password");
const PG_USER = LOCAL_POSTGRES_USER;

/**
 * The password of the local Postgres's `opsbench` role (like compose's POSTGRES_PASSWORD): made when setup first
 * starts Postgres, kept in .data/postgres-password (mode 0600). Null before that.
 */
export const localPostgresPassword = () => sharedPostgresPassword(root);

/** The local Postgres's URL for database `db`, as the opsbench role with its password. */
export const localDatabaseUrl = (db = "opsbench") => sharedDatabaseUrl(root, db, process.env);

/**
 * The password of the local Redis (like compose's REDIS_PASSWORD): made when setup first starts Redis, kept in
 * .data/redis/password (mode 0600). Null for a Redis started before opsbench set one (it then has none).
 */
export const localRedisPassword = () => sharedRedisPassword(root);

/** The local Redis's URL (database `db`), with its password: what the CLI, the worker and the tests use by default. */
export const localRedisUrl = (db = 0) => sharedRedisUrl(root, db, process.env);

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

const newPassword = () => `${randomBytes(24).toString("base64url")}\n`;

async function startPostgres(log) {
  if (!localPostgresPassword()) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(pgPasswordFile, newPassword(), { mode: 0o600 });
  }
  if (!(await portOpen(PG_PORT))) {
    if (!existsSync(path.join(pgData, "PG_VERSION"))) {
      mkdirSync(pgData, { recursive: true });
      if (isRoot) chownSync(pgData, uid("postgres"), gid("postgres"));
      log(`initialising a Postgres cluster in ${path.relative(root, pgData)}`);
      // initdb reads the password from a file its user can read: a private copy, removed at once.
      const tmp = mkdtempSync(path.join(os.tmpdir(), "opsbench-pg-"));
      const pwfile = path.join(tmp, "password");
      try {
        writeFileSync(pwfile, `${localPostgresPassword()}\n`, { mode: 0o600 });
        if (isRoot) {
          chownSync(tmp, uid("postgres"), gid("postgres"));
          chownSync(pwfile, uid("postgres"), gid("postgres"));
        }
        asPostgresUser(postgresBin("initdb"), [
          "-D",
          pgData,
          "--auth=scram-sha-256",
          `--pwfile=${pwfile}`,
          `--username=${PG_USER}`,
          "--encoding=UTF8",
          "--no-locale",
        ]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
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
  requirePostgresPassword(log);
  for (const db of ["opsbench", "opsbench_test"]) {
    const exists = psql("postgres", `SELECT 1 FROM pg_database WHERE datname='${db}'`);
    if (exists.status !== 0) throw new Error(`cannot reach Postgres on 127.0.0.1:${PG_PORT}: ${exists.stderr.trim()}`);
    if (exists.stdout.trim() !== "1") {
      const made = psql("postgres", `CREATE DATABASE ${db}`);
      if (made.status !== 0) throw new Error(`cannot create the database ${db}: ${made.stderr.trim()}`);
      log(`created the database ${db}`);
    }
    // Only opsbench's role connects here (a benchapp's role of its own, made per deployment, must not).
    const closed = psql("postgres", `REVOKE CONNECT, TEMPORARY ON DATABASE ${db} FROM PUBLIC`);
    if (closed.status !== 0) throw new Error(`cannot close the database ${db} to other roles: ${closed.stderr.trim()}`);
  }
  log(`Postgres on 127.0.0.1:${PG_PORT}`);
}

/** psql as the opsbench role, with its password in the environment (never on the command line, where ps shows it). */
function psql(db, sql) {
  const args = ["-h", "127.0.0.1", "-p", String(PG_PORT), "-U", PG_USER, "-d", db, "-v", "ON_ERROR_STOP=1", "-tAc", sql];
  return spawnSync(postgresBin("psql"), args, {
    encoding: "utf8",
    env: { PATH: process.env.PATH, PGPASSWORD: localPostgresPassword() ?? "", PGCONNECT_TIMEOUT: "10" },
  });
}

/**
 * A cluster this setup made before it had passwords trusted every local connection (any user of the machine was
 * its superuser): give the role its password and switch every `trust` rule of pg_hba.conf to scram-sha-256.
 */
function requirePostgresPassword(log) {
  const hba = path.join(pgData, "pg_hba.conf");
  if (!existsSync(hba)) return; // a Postgres this setup did not make: its own rules
  const lines = readFileSync(hba, "utf8").split("\n");
  const rule = /^(\s*(?:local|host\S*)\s.*\s)trust(\s*)$/;
  if (!lines.some((l) => rule.test(l))) return;
  const set = psql("postgres", `ALTER ROLE ${PG_USER} PASSWORD '${localPostgresPassword()}'`);
  if (set.status !== 0) throw new Error(`cannot set the password of the local Postgres: ${set.stderr.trim()}`);
  writeFileSync(hba, lines.map((l) => l.replace(rule, "$1scram-sha-256$2")).join("\n"));
  asPostgresUser(postgresBin("pg_ctl"), ["-D", pgData, "reload"]);
  log(`the local Postgres now asks for a password (${path.relative(root, pgPasswordFile)})`);
}

function uid(user) {
  return Number(spawnSync("id", ["-u", user], { encoding: "utf8" }).stdout.trim());
}
function gid(user) {
  return Number(spawnSync("id", ["-g", user], { encoding: "utf8" }).stdout.trim());
}

/**
 * redis-server's arguments for the local setup. The append-only file keeps queued
 * jobs across a restart or a crash (at most the last second is lost): without it a
 * run whose job vanished would stay QUEUED forever. BullMQ needs noeviction.
 */
export function redisServerArgs(port, dir, confFile) {
  return [
    // The password is in a file only this user reads, never on the command line (where ps shows it).
    ...(confFile ? [confFile] : []),
    "--port",
    String(port),
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
    "yes",
    "--appendfsync",
    "everysec",
    "--maxmemory-policy",
    "noeviction",
  ];
}

async function startRedis(log) {
  if (!(await portOpen(REDIS_PORT))) {
    const dir = redisDir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!localRedisPassword()) writeFileSync(redisPasswordFile, newPassword(), { mode: 0o600 });
    const conf = path.join(dir, "redis.conf");
    writeFileSync(conf, `requirepass ${localRedisPassword()}\n`, { mode: 0o600 });
    const r = spawnSync("redis-server", redisServerArgs(REDIS_PORT, dir, conf), { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`redis-server failed: ${r.stderr.trim()}`);
    await waitForPort(REDIS_PORT, "Redis");
  } else {
    const ping = spawnSync("redis-cli", ["-p", String(REDIS_PORT), "ping"], { encoding: "utf8", env: { PATH: process.env.PATH } });
    if (ping.stdout.trim() === "PONG") {
      log(
        `Redis on 127.0.0.1:${REDIS_PORT} has no password (started before opsbench set one): stop it (node scripts/local-services.mjs stop) and run the setup again to give it one`,
      );
      return;
    }
  }
  log(`Redis on 127.0.0.1:${REDIS_PORT}`);
}

export const localServices = {
  postgresBin,
  async start({ log = console.log } = {}) {
    const env = withSecretFiles(process.env);
    if (!env.DATABASE_URL) await startPostgres(log);
    if (!env.REDIS_URL) await startRedis(log);
    return {
      databaseUrl: env.DATABASE_URL || localDatabaseUrl("opsbench"),
      testDatabaseUrl: env.TEST_DATABASE_URL || localDatabaseUrl("opsbench_test"),
      redisUrl: env.REDIS_URL || localRedisUrl(0),
    };
  },
  stop() {
    if (existsSync(path.join(pgData, "postmaster.pid"))) asPostgresUser(postgresBin("pg_ctl"), ["-D", pgData, "-m", "fast", "stop"]);
    // The append-only file is flushed on shutdown either way; no RDB snapshot is wanted.
    const password = localRedisPassword();
    spawnSync("redis-cli", ["-p", String(REDIS_PORT), "shutdown", "nosave"], {
      stdio: "ignore",
      env: { ...process.env, ...(password ? { REDISCLI_AUTH: password } : {}) },
    });
  },
};

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "stop") localServices.stop();
