// Every benchapp deploys through the local-service provider (real processes) and
// passes its own smoke test (benchapps/<app>/smoke.mjs); its load preset
// (workload.json) is a valid workload whose requests the app answers; teardown
// leaves no process. The iot app runs against a Postgres database of its own,
// made and dropped here. The shop's consistency check passes after a real k6
// checkout load run by the worker, and fails when stock is corrupted on purpose
// (the shop on Restate has its runs in apps/worker/test/shop-restate-run.test.ts).
import { existsSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_APPS, localServiceSpec, workloadInput, type WorkloadInput } from "@opsbench/core";
import { localService, type Deployment, type ProviderContext } from "@opsbench/providers";
import { buildBenchapps, listBenchapps } from "../benchapps/build.mjs";
import { isAlive, openTestStack, testDatabaseUrl } from "./helpers";
import { putShopCheckoutLoad, putShopRequests, putShopTarget, runToEnd } from "./shop-runs";

const benchappsDir = fileURLToPath(new URL("../benchapps", import.meta.url));

function providerContext(runId: string): ProviderContext {
  return {
    runId,
    signal: new AbortController().signal,
    benchappsDir,
    log: () => {},
    saveState: async () => {},
    event: async () => {},
  };
}

/** Running (a zombie has exited: it only waits for our event loop to reap it). */
function running(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Every pid a deployment's state names (load balancer, replicas' process groups). */
function pidsOf(state: unknown): number[] {
  const out: number[] = [];
  const walk = (v: unknown, key?: string) => {
    if (typeof v === "number" && (key === "pid" || key === "pids")) out.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x, key === "pids" ? "pids" : undefined);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(state);
  return [...new Set(out)];
}

type Smoke = (baseUrl: string) => Promise<void>;
const smokeOf = async (app: string): Promise<Smoke> =>
  ((await import(pathToFileURL(path.join(benchappsDir, app, "smoke.mjs")).href)) as { smoke: Smoke }).smoke;

function presetOf(app: string): WorkloadInput {
  return workloadInput.parse(JSON.parse(readFileSync(path.join(benchappsDir, app, "workload.json"), "utf8")));
}

interface PresetRequest {
  name: string;
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
}

/** The preset's requests (every preset is a generated workload, not a script). */
function requestsOf(app: string): PresetRequest[] {
  const spec = presetOf(app).spec;
  if (!("requests" in spec)) throw new Error(`${app}/workload.json has no requests`);
  return spec.requests;
}

/**
 * Sends each request of the app's preset once and expects an answer: under 400, or one of the shops' business
 * conflicts (409, their README's checkout rule): an order rolled back (the preset checks out a random cart for a
 * random user, who may lack the credits or the stock) or a cart that is empty. Anything else is a failure to serve.
 */
async function expectPresetAnswered(app: string, baseUrl: string) {
  for (const r of requestsOf(app)) {
    const res = await fetch(baseUrl + r.path, { method: r.method, body: r.body, headers: r.headers });
    const body = await res.text();
    const businessConflict = res.status === 409 && /"status":"rolled-back"|shopping cart \\?"[^"\\]+\\?" is empty/.test(body);
    if (!businessConflict) expect(res.status, `${app} preset request "${r.name}" answered ${body.slice(0, 300)}`).toBeLessThan(400);
  }
}

/** Deploys, runs `fn` against the endpoint, tears down, and checks that no process is left. */
async function withDeployment(spec: Record<string, unknown>, fn: (dep: Deployment) => Promise<void>, extra: Partial<ProviderContext> = {}) {
  const ctx = { ...providerContext(`bench-${Math.random().toString(36).slice(2, 8)}`), ...extra };
  const dep = await localService.deploy(localServiceSpec.parse({ startTimeoutMs: 60_000, ...spec }), ctx);
  const pids = pidsOf(dep.state);
  try {
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(pids.filter(running)).toEqual(pids);
    await fn(dep);
  } finally {
    await localService.teardown(dep, ctx);
  }
  expect(pids.filter(running)).toEqual([]);
  return pids;
}

beforeAll(() => {
  // Go binaries and the Flask virtualenv (normally made by scripts/setup.mjs; fast when fresh).
  buildBenchapps({ log: () => {} });
}, 300_000);

describe("benchapps", () => {
  it("are all listed in LOCAL_APPS, and each has a manifest, README, Dockerfile, preset and smoke test", () => {
    expect([...LOCAL_APPS].sort()).toEqual(listBenchapps());
    for (const app of LOCAL_APPS) {
      for (const file of ["benchapp.json", "README.md", "Dockerfile", "workload.json", "smoke.mjs"]) {
        expect(existsSync(path.join(benchappsDir, app, file)), `${app}/${file}`).toBe(true);
      }
      expect(requestsOf(app).length).toBeGreaterThan(0);
    }
  });

  const simple: Array<{ app: (typeof LOCAL_APPS)[number]; replicas: number; env?: Record<string, string> }> = [
    { app: "apache", replicas: 2 },
    { app: "cpu-loop/node-http", replicas: 2 },
    { app: "cpu-loop/express", replicas: 2 },
    { app: "cpu-loop/flask", replicas: 1 },
    { app: "echo/go", replicas: 2 },
    { app: "echo/node", replicas: 1 },
    { app: "shop", replicas: 1 },
    // restate-server, the shop's Restate services and the facade: one process group.
    { app: "shop-restate", replicas: 1, env: { SHOP_SEED_PRODUCTS: "50", SHOP_SEED_USERS: "10", SHOP_SEED_CARTS: "20" } },
  ];
  for (const { app, replicas, env } of simple) {
    it(`${app}: deploys, passes its smoke test and answers its preset; nothing left after teardown`, async () => {
      const smoke = await smokeOf(app);
      await withDeployment({ app, replicas, env: env ?? {} }, async (dep) => {
        await smoke(dep.endpoint);
        await expectPresetAnswered(app, dep.endpoint);
      });
    });
  }

  for (const [app, placements] of [
    ["msd/poll", ["co-located", "isolated"]],
    ["msd/beps", ["co-located", "tiered", "isolated"]],
  ] as const) {
    for (const placement of placements) {
      it(`${app} placed ${placement}: passes its smoke test and answers its preset`, async () => {
        const smoke = await smokeOf(app);
        const pids = await withDeployment({ app, replicas: 1, placement }, async (dep) => {
          await smoke(dep.endpoint);
          await expectPresetAnswered(app, dep.endpoint);
        });
        // One load balancer, plus one process per isolation domain.
        const domains = { "co-located": 1, tiered: app === "msd/beps" ? 3 : 2, isolated: app === "msd/beps" ? 9 : 2 }[placement];
        expect(pids.length).toBe(1 + domains);
      });
    }
  }
});

describe("iot on a Postgres database of its own", () => {
  // The spec's `database`: a role and a database made for the deployment on the test Postgres, dropped at teardown.
  const database = { engine: "postgres", urlEnv: "IOT_DATABASE_URL" };
  const env = { IOT_SCRYPT_COST: "1024" };
  const asAdmin = async <T>(fn: (c: pg.Client) => Promise<T>) => {
    const c = new pg.Client({ connectionString: testDatabaseUrl() });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  const appRoles = () =>
    asAdmin(async (c) => {
      const rows = await c.query<{
        rolname: string;
        rolsuper: boolean;
        rolcreatedb: boolean;
        rolcreaterole: boolean;
        rolconnlimit: number;
      }>("SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolconnlimit FROM pg_roles WHERE rolname LIKE 'opsbench_app_%'");
      return rows.rows;
    });
  const appDatabases = () =>
    asAdmin(async (c) => {
      const rows = await c.query<{ datname: string; owner: string }>(
        "SELECT datname, pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname LIKE 'opsbench_app_%'",
      );
      return rows.rows;
    });
  const withIot = (spec: Record<string, unknown>, fn: (dep: Deployment) => Promise<void>) =>
    withDeployment({ app: "iot", database, env, ...spec }, fn, { appDatabaseUrl: testDatabaseUrl() });

  it("one service: gets a database and role of its own (never a superuser), seeds, passes its smoke test and answers its preset; both dropped at teardown", async () => {
    const before = { roles: await appRoles(), databases: await appDatabases() };
    const smoke = await smokeOf("iot");
    let made: { datname: string; owner: string } | undefined;
    await withIot({ replicas: 1 }, async (dep) => {
      const known = new Set(before.databases.map((d) => d.datname));
      made = (await appDatabases()).find((d) => !known.has(d.datname));
      expect(made, "a database made for the deployment").toBeDefined();
      const role = (await appRoles()).find((r) => r.rolname === made!.owner);
      expect(role).toMatchObject({ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolconnlimit: 64 });
      await smoke(dep.endpoint);
      await expectPresetAnswered("iot", dep.endpoint);
    });
    expect((await appDatabases()).map((d) => d.datname)).not.toContain(made!.datname);
    expect((await appRoles()).map((r) => r.rolname)).not.toContain(made!.owner);
  });

  it("refuses an env that sets the database's variable itself", () => {
    const parsed = localServiceSpec.safeParse({
      app: "iot",
      database,
      env: { IOT_DATABASE_URL: "postgresql://opsbench@127.0.0.1:55432/x" },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ["env", "IOT_DATABASE_URL"],
      message: expect.stringContaining("opsbench sets it"),
    });
  });

  it("one function per endpoint: FUNCTION=users-get serves that endpoint only, two replicas on one database", async () => {
    const preset = requestsOf("iot");
    const usersGet = preset.find((r) => r.name === "users-get")!;
    const signin = preset.find((r) => r.name === "users-signin")!;
    await withIot({ replicas: 2, env: { ...env, FUNCTION: "users-get" } }, async (dep) => {
      for (let i = 0; i < 4; i++) {
        const res = await fetch(dep.endpoint + usersGet.path, { headers: usersGet.headers });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { username: string }).username).toBe("user1");
      }
      const other = await fetch(dep.endpoint + signin.path, { method: "POST", body: signin.body, headers: signin.headers });
      expect(other.status).toBe(404);
      expect(((await other.json()) as { error: string }).error).toMatch(/serves GET \/api\/users\/ only/);
    });
  });
});

describe("shop consistency check", () => {
  let stack: Awaited<ReturnType<typeof openTestStack>>;
  beforeAll(async () => {
    stack = await openTestStack();
  });
  afterAll(() => stack.close());

  const manifest = JSON.parse(readFileSync(path.join(benchappsDir, "shop/benchapp.json"), "utf8")) as { consistencyCheck: string };

  it("passes after a real k6 checkout load run by the worker (orders completed and rolled back)", async () => {
    const report = path.join(os.tmpdir(), `opsbench-shop-report-${process.pid}-${Date.now()}.json`);
    // Little stock and few credits, so a short load both completes and rolls back checkouts.
    await putShopTarget(stack, "bench-shop", "shop", {
      SHOP_SEED_PRODUCTS: "20",
      SHOP_SEED_USERS: "20",
      SHOP_SEED_CARTS: "40",
      SHOP_SEED_STOCK: "30",
      SHOP_SEED_CREDITS: "3000",
      SHOP_FINAL_REPORT: report,
    });
    await putShopCheckoutLoad(stack, "bench-shop-checkout", 5);
    try {
      const view = await runToEnd(stack, "bench-shop", "bench-shop-checkout");
      expect(view.error).toBeNull();
      expect(view.status).toBe("SUCCEEDED");
      expect(view.summary!.requests).toBeGreaterThan(50);
      // The worker ran the app's consistency check after the load (the COLLECT step) and kept it on the run.
      expect(view.summary!.appChecks).toEqual([expect.objectContaining({ name: "consistency", ok: true })]);
      expect(view.steps.find((s) => s.name === "COLLECT")?.status).toBe("SUCCEEDED");
      // Written by the shop when teardown stopped it: the state after the load.
      const result = JSON.parse(readFileSync(report, "utf8")) as {
        ok: boolean;
        violations: unknown[];
        totals: { completed: number; rolledBack: number; sold: number };
      };
      expect(result.violations).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.totals.completed).toBeGreaterThan(0);
      expect(result.totals.rolledBack).toBeGreaterThan(0);
      expect(result.totals.sold).toBeLessThanOrEqual(20 * 30);
    } finally {
      rmSync(report, { force: true });
    }
  });

  it("the run shows the check failed when the load corrupts stock on purpose", async () => {
    await putShopTarget(stack, "bench-shop-corruptible", "shop", {
      SHOP_SEED_PRODUCTS: "10",
      SHOP_SEED_USERS: "5",
      SHOP_SEED_CARTS: "10",
      SHOP_ALLOW_CORRUPTION: "1",
    });
    await putShopRequests(stack, "bench-shop-corrupt", [{ name: "corrupt", path: "/admin/corrupt", body: { stockDelta: 3 } }]);
    const view = await runToEnd(stack, "bench-shop-corruptible", "bench-shop-corrupt");
    expect(view.status).toBe("SUCCEEDED"); // a failed check is a result, not a crash
    expect(view.summary!.appChecks).toEqual([expect.objectContaining({ name: "consistency", ok: false, message: "1 violation(s)" })]);
    expect(view.events.some((e) => /app check consistency: FAILED/.test(e.message))).toBe(true);
  });

  it("fails when stock is corrupted on purpose (and corruption is refused without the test flag)", async () => {
    const call = async (base: string, method: string, p: string, body?: unknown) => {
      const res = await fetch(base + p, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    for (const app of ["shop", "shop-restate"]) {
      await withDeployment(
        { app, replicas: 1, env: { SHOP_SEED_PRODUCTS: "10", SHOP_SEED_USERS: "5", SHOP_SEED_CARTS: "10" } },
        async (dep) => {
          expect((await call(dep.endpoint, "POST", "/admin/corrupt", { stockDelta: 1 })).status, app).toBe(403);
          expect((await call(dep.endpoint, "GET", manifest.consistencyCheck)).json.ok, app).toBe(true);
        },
      );
    }
    await withDeployment(
      {
        app: "shop",
        replicas: 1,
        env: { SHOP_SEED_PRODUCTS: "10", SHOP_SEED_USERS: "5", SHOP_SEED_CARTS: "10", SHOP_ALLOW_CORRUPTION: "1" },
      },
      async (dep) => {
        const checkouts = await Promise.all(
          Array.from({ length: 20 }, () => call(dep.endpoint, "POST", "/orders/checkout", { cartId: "random", userId: "random" })),
        );
        expect(checkouts.filter((c) => c.status === 200).length).toBeGreaterThan(0);
        const before = (await call(dep.endpoint, "GET", manifest.consistencyCheck)).json;
        expect(before).toMatchObject({ ok: true, violations: [] });

        const corrupted = (await call(dep.endpoint, "POST", "/admin/corrupt", { productId: "p3", stockDelta: -2 })).json;
        const after = (await call(dep.endpoint, "GET", manifest.consistencyCheck)).json;
        expect(after.ok).toBe(false);
        expect(after.violations).toEqual([expect.objectContaining({ kind: "stock", productId: "p3", stock: corrupted.stock })]);
        const v = (after.violations as Array<{ stock: number; sold: number; initial: number }>)[0]!;
        expect(v.stock + v.sold).toBe(v.initial - 2);
      },
    );
  });
});
