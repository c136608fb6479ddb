// The compose file and Dockerfile's structure, what self-hosting relies on, checked without
// Docker, and the Redis command and healthcheck against a real redis-server. Starting the
// file for real (images built, the demo study run in it) is `npm run check:compose`, which
// needs root and minutes, so it is not part of `npm test`.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, waitForPort } from "./ports";

const root = path.resolve(import.meta.dirname, "..");
const compose = parse(readFileSync(path.join(root, "docker-compose.yml"), "utf8"));
// biome-ignore lint/suspicious/noExplicitAny: a compose file read loosely, its shape is what the assertions check
const services = compose.services as Record<string, any>;
const composeText = readFileSync(path.join(root, "docker-compose.yml"), "utf8");

const dockerfiles = [
  ...new Set(Object.values(services).flatMap((svc) => (svc.build ? [path.join(svc.build.context, svc.build.dockerfile)] : []))),
];
const dockerfile = (file: string) => readFileSync(path.join(root, file), "utf8");
/** A Dockerfile's stages, each the lines from one FROM to the next (continuation lines joined). */
const stagesOf = (text: string) =>
  text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .reduce<string[][]>((stages, line) => {
      if (/^FROM\s/i.test(line)) stages.push([line]);
      else stages.at(-1)?.push(line);
      return stages;
    }, []);
/** A stage's name: "FROM node:24 AS web" -> "web". */
const stageName = (stage: string[]) => /\sAS\s+(\S+)$/i.exec(stage[0]!)?.[1] ?? "";
/** Each image compose builds: its Dockerfile and the stage it targets. */
const images = [
  ...new Map(
    Object.values(services).flatMap((svc) =>
      svc.build
        ? [
            [
              `${svc.build.dockerfile}#${svc.build.target}`,
              { file: path.join(svc.build.context, svc.build.dockerfile), target: svc.build.target as string },
            ],
          ]
        : [],
    ),
  ).values(),
];
/** An image reference pinned to an exact version (major.minor at least, node major.minor.patch), never latest. */
const PINNED = /^[\w./-]+:\d+\.\d+(\.\d+)?(-[\w.-]+)?(@sha256:[0-9a-f]{64})?$/;

describe("docker-compose.yml", () => {
  it("has postgres, redis, a one-shot migrate, web, runner and worker", () => {
    expect(Object.keys(services).sort()).toEqual(["migrate", "postgres", "redis", "runner", "web", "worker"]);
    expect(services.migrate.restart).toBe("no");
  });

  it("runs migrate, worker and runner from one image, built once", () => {
    const image = services.migrate.image;
    expect(image).toBeTruthy();
    for (const name of ["worker", "runner"]) {
      expect(services[name].image, name).toBe(image);
      expect(services[name].build, `${name} does not build its own copy`).toBeUndefined();
    }
    expect(Object.values(services).filter((svc) => svc.image === image && svc.build)).toHaveLength(1);
  });

  it("health-checks every long-running service and starts dependants only when they are healthy", () => {
    for (const name of ["postgres", "redis", "web", "worker", "runner"]) expect(services[name].healthcheck?.test, name).toBeDefined();
    expect(services.migrate.depends_on.postgres.condition).toBe("service_healthy");
    for (const name of ["web", "worker"]) {
      expect(services[name].depends_on.migrate.condition).toBe("service_completed_successfully");
      expect(services[name].depends_on.redis.condition).toBe("service_healthy");
    }
    expect(services.worker.depends_on.runner.condition).toBe("service_healthy");
  });

  it("runs Redis with noeviction and requires the database password", () => {
    expect(services.redis.command.join(" ")).toContain("--maxmemory-policy noeviction");
    expect(readFileSync(path.join(root, "docker-compose.yml"), "utf8")).toContain("${POSTGRES_PASSWORD:?");
    expect(services.postgres.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it("builds from Dockerfiles whose COPY sources exist", () => {
    for (const [name, svc] of Object.entries(services)) {
      if (!svc.build) continue;
      const dockerfile = path.join(root, svc.build.context, svc.build.dockerfile);
      expect(existsSync(dockerfile), `${name}: ${dockerfile}`).toBe(true);
      for (const line of readFileSync(dockerfile, "utf8").split("\n")) {
        const m = /^COPY\s+(?!--from)(.+)\s+\S+$/.exec(line.trim());
        if (!m) continue;
        for (const src of m[1]!.split(/\s+/).filter((s) => !s.startsWith("--"))) {
          expect(existsSync(path.join(root, svc.build.context, src)), `${name}: COPY ${src}`).toBe(true);
        }
      }
    }
  });
});

describe("images", () => {
  it("come from base images pinned to exact versions (compose and every FROM)", () => {
    // opsbench's own images (a service's `build:` names them) are built here, not pulled.
    const built = new Set(Object.values(services).flatMap((svc) => (svc.build && svc.image ? [svc.image] : [])));
    for (const [name, svc] of Object.entries(services)) if (svc.image && !built.has(svc.image)) expect(svc.image, name).toMatch(PINNED);
    for (const file of dockerfiles) {
      const stages = stagesOf(dockerfile(file));
      const named = new Set(stages.map(stageName));
      for (const stage of stages) {
        const image = stage[0]!.split(/\s+/)[1]!;
        if (named.has(image)) continue; // built on an earlier stage of the same file
        expect(image, file).toMatch(PINNED);
        if (image.startsWith("node:")) expect(image, `${file}: node needs major.minor.patch`).toMatch(/^node:\d+\.\d+\.\d+-/);
      }
    }
  });

  it("install with npm ci, with every workspace's manifest in place first (npm ci checks them against the lock file)", () => {
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { link?: boolean }> };
    const workspaces = Object.keys(lock.packages).filter((key) => key !== "" && !key.includes("node_modules"));
    expect(workspaces.length).toBeGreaterThan(5);
    for (const file of dockerfiles) {
      const text = dockerfile(file);
      expect(text, file).not.toMatch(/npm (install|i)\b/);
      const ci = text.indexOf("RUN npm ci");
      expect(ci, `${file}: npm ci`).toBeGreaterThan(0);
      const before = text.slice(0, ci);
      for (const ws of workspaces)
        expect(before, `${file}: COPY ${ws}/package.json before npm ci`).toContain(`COPY ${ws}/package.json ${ws}/`);
    }
  });

  it("are multi-stage and run as a non-root user in each image's stage (the compose build target)", () => {
    expect(images.map((i) => i.target).sort()).toEqual(["app", "web"]);
    for (const { file, target } of images) {
      const stage = stagesOf(dockerfile(file)).find((s) => stageName(s) === target);
      expect(stage, `${file}: a stage named ${target}`).toBeDefined();
      // Multi-stage: the image copies what other stages built, it does not build itself.
      expect(
        stage!.some((l) => /^COPY\s+--from=/.test(l)),
        `${file} ${target}: COPY --from`,
      ).toBe(true);
      const users = stage!.filter((l) => /^USER\s/i.test(l));
      expect(users.length, `${file} ${target}: USER`).toBeGreaterThan(0);
      expect(users.at(-1), `${file} ${target}`).not.toMatch(/^USER\s+(root|0)(:|$)/i);
      // Nothing after the last USER switches back.
      expect(
        stage!.slice(stage!.lastIndexOf(users.at(-1)!)).some((l) => /^RUN\s/.test(l)),
        `${file} ${target}: no RUN after USER`,
      ).toBe(false);
    }
  });
});

describe("compose: credentials and roles", () => {
  const appServices = ["web", "worker"];

  it("requires every password and the secret key, with a message naming the variable", () => {
    for (const name of ["POSTGRES_PASSWORD", "OPSBENCH_DB_PASSWORD", "REDIS_PASSWORD", "OPSBENCH_SECRET_KEY"]) {
      const uses = [...composeText.matchAll(new RegExp(`\\$\\{${name}(:?[?\\-])?([^}]*)\\}`, "g"))];
      expect(uses.length, name).toBeGreaterThan(0);
      for (const use of uses) {
        expect(use[1], `${name} is required, never defaulted`).toBe(":?");
        expect(use[2], `the message names ${name}`).toContain(name);
      }
    }
  });

  it("gives the runner no secret: no key, password, database or Redis address", () => {
    const env = services.runner.environment as Record<string, string>;
    for (const [key, value] of Object.entries(env)) {
      expect(key, `runner: ${key}`).not.toMatch(/SECRET|PASSWORD|POSTGRES|REDIS|DATABASE|OIDC/);
      expect(String(value), `runner: ${key}`).not.toMatch(/SECRET|PASSWORD|POSTGRES|REDIS|DATABASE/);
    }
    expect(services.runner.env_file).toBeUndefined();
    expect(env.OPSBENCH_RUNNER_SOCKET).toBe(services.worker.environment.OPSBENCH_RUNNER_SOCKET);
  });

  it("gives the runner the sandbox's privileges and the worker none; the worker shares the runner's network", () => {
    expect(services.runner.user).toBe("root");
    expect([...services.runner.cap_add].sort()).toEqual(["NET_ADMIN", "SYS_ADMIN"]);
    expect(services.runner.privileged).toBeUndefined();
    expect(services.runner.sysctls["net.ipv4.conf.all.route_localnet"]).toBe(1);
    expect(services.runner.sysctls["net.ipv4.ip_forward"]).toBe(1);
    for (const name of ["web", "worker", "migrate"]) {
      expect(services[name].cap_add, name).toBeUndefined();
      expect(services[name].security_opt, name).toBeUndefined();
      expect(services[name].user, name).toBeUndefined();
    }
    expect(services.worker.network_mode).toBe("service:runner");
    // The shared volume holds the runner's socket only, and only the two mount it.
    const socketDir = path.dirname(services.runner.environment.OPSBENCH_RUNNER_SOCKET);
    expect(services.runner.volumes).toEqual([`runner-socket:${socketDir}`]);
    expect(services.worker.volumes).toEqual([`runner-socket:${socketDir}`]);
    for (const name of ["web", "migrate", "postgres", "redis"])
      expect(
        (services[name].volumes ?? []).some((v: string) => v.startsWith("runner-socket:")),
        name,
      ).toBe(false);
  });

  it("lists every variable the compose file reads in .env.example", () => {
    const example = readFileSync(path.join(root, ".env.example"), "utf8");
    const defined = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    const used = new Set([...composeText.matchAll(/(?<!\$)\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!));
    expect(used.size).toBeGreaterThanOrEqual(4);
    for (const name of used) expect(defined.has(name), `${name} missing from .env.example`).toBe(true);
  });

  it("connects web and worker as the application role, never as the Postgres superuser, with parts instead of URLs", () => {
    const superuser = services.postgres.environment.POSTGRES_USER;
    const appRole = services.migrate.environment.OPSBENCH_APP_DB_USER;
    expect(appRole).toBeTruthy();
    expect(appRole).not.toBe(superuser);
    for (const name of appServices) {
      const env = services[name].environment;
      expect(env.POSTGRES_USER, name).toBe(appRole);
      expect(env.POSTGRES_PASSWORD, name).toBe(services.migrate.environment.OPSBENCH_APP_DB_PASSWORD);
      expect(env.POSTGRES_PASSWORD, name).not.toBe(services.postgres.environment.POSTGRES_PASSWORD);
      // A URL would carry the password unencoded: `@ # ? /` in it would break it.
      expect(env.DATABASE_URL, name).toBeUndefined();
      expect(env.REDIS_URL, name).toBeUndefined();
    }
    expect(services.migrate.environment.POSTGRES_USER).toBe(superuser);
  });

  it("runs Redis with a password that web and worker are given, and the append-only file", () => {
    const command = services.redis.command.join(" ");
    expect(command).toContain('--requirepass "$$REDIS_PASSWORD"');
    expect(command).toContain("--appendonly yes");
    expect(services.redis.environment.REDIS_PASSWORD).toMatch(/^\$\{REDIS_PASSWORD:\?/);
    for (const name of appServices) expect(services[name].environment.REDIS_PASSWORD, name).toBe(services.redis.environment.REDIS_PASSWORD);
  });

  it("health-checks web on /api/health and the worker on its heartbeat, not on a process merely existing", () => {
    expect(services.web.healthcheck.test.join(" ")).toContain("/api/health");
    const worker = services.worker.healthcheck.test as string[];
    expect(worker.join(" ")).not.toContain("kill -0");
    // A plain-JavaScript probe (no `--import tsx` start every 10 s) of the worker's health socket, whose /health
    // answers from the worker's own heartbeat in Redis.
    expect(worker).not.toContain("tsx");
    const script = worker.find((a) => a.endsWith(".mjs"));
    expect(script && existsSync(path.join(root, script))).toBe(true);
    expect(worker.at(-1)).toBe("worker");
    expect(services.worker.environment.OPSBENCH_WORKER_HEALTH_SOCKET).toMatch(/^\/tmp\//);
    expect(readFileSync(path.join(root, "apps/worker/src/metrics-server.ts"), "utf8")).toContain("ownHeartbeatAge");
    expect(readFileSync(path.join(root, "apps/worker/src/heartbeat-age.ts"), "utf8")).toContain("readWorkerHeartbeats");
    expect((services.runner.healthcheck.test as string[]).join(" ")).not.toContain("tsx");
    expect(existsSync(path.join(root, "apps/web/app/api/health/route.ts"))).toBe(true);
  });
});

describe("compose: the Redis service's command and healthcheck, run against a real redis-server", () => {
  const password = "p@ss#w?rd/:x' &=";
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-compose-redis-"));
  let server: ChildProcess | undefined;
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  // Compose turns `$$` into `$`; the shell then expands the variable from the environment.
  const shell = (list: string[]) => list.at(-1)!.replaceAll("$$", "$");

  it("starts with the password required, and the healthcheck passes only with the right one", async () => {
    const port = await freePort();
    const command = shell(services.redis.command).replace("redis-server", `redis-server --port ${port} --bind 127.0.0.1 --dir ${dir}`);
    server = spawn("sh", ["-c", command], { env: { ...process.env, REDIS_PASSWORD: password }, stdio: "ignore" });
    await waitForPort(port);
    const check = (pw: string) =>
      spawnSync("sh", ["-c", shell(services.redis.healthcheck.test).replace("redis-cli", `redis-cli -p ${port}`)], {
        env: { ...process.env, REDIS_PASSWORD: pw },
        encoding: "utf8",
      }).status;
    expect(check(password)).toBe(0);
    expect(check("wrong")).not.toBe(0);
    const noAuth = spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" });
    expect(noAuth.stdout).toMatch(/NOAUTH/);
  });
});
