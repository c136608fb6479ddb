// Instance ceilings (issue 20): a workspace's owner is not the machine's. A stranger who owns a workspace of their
// own cannot raise its limits above the instance admin's ceilings (1e6 VUs, 7-day runs, 1000 concurrent runs were
// all accepted on main), cannot change the ceilings, and a ceiling the admin lowers later binds workspaces that
// already exist: the worker refuses their runs naming the ceiling. Runs per day are counted at run and study creation.
import { DEFAULT_INSTANCE_CEILINGS, DEFAULT_WORKSPACE_LIMITS } from "@opsbench/core";
import type { Auth, Db } from "@opsbench/db";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { shortRamp, taewaTarget, waitForFinal } from "../helpers";
import { startSignedInWeb } from "../test-identity";
import { type Caller, call, newMember, newWorkspace, openMembers, sessionOf } from "./limits-members";

const { web, owner } = await startSignedInWeb();
// The file's first account: owner of "default" and the instance admin.
const admin = { headers: { authorization: `Bearer ${owner.token}` } };
let db: Db;
let auth: Auth;
let stranger: Caller;

beforeAll(async () => {
  ({ db, auth } = await openMembers());
  stranger = await newMember(db, auth, "stranger@limits.test", await newWorkspace(db, "strangers"), "owner");
});
afterEach(async () => {
  expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", DEFAULT_INSTANCE_CEILINGS)).status).toBe(200);
});
afterAll(() => db.$disconnect());

describe("instance ceilings", () => {
  it("an owner cannot raise their workspace's limits above the ceilings: 422 naming each limit and its ceiling, nothing changed", async () => {
    const asked = { maxVUs: 1_000_000, maxDurationSeconds: 7 * 86_400, maxConcurrentRuns: 1000 };
    const res = await call(web, stranger, "PUT", "/api/v1/limits", asked);
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain(
      `maxVUs: 1000000 is above the instance's ceiling maxVUs (${DEFAULT_INSTANCE_CEILINGS.maxVUs})`,
    );
    expect(res.body.error.message).toContain(`instance's ceiling maxDurationSeconds (${DEFAULT_INSTANCE_CEILINGS.maxDurationSeconds})`);
    expect(res.body.error.message).toContain(`instance's ceiling maxConcurrentRuns (${DEFAULT_INSTANCE_CEILINGS.maxConcurrentRuns})`);
    expect(res.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "maxConcurrentRuns",
      "maxDurationSeconds",
      "maxVUs",
    ]);
    expect((await call(web, stranger, "GET", "/api/v1/limits")).body).toEqual(DEFAULT_WORKSPACE_LIMITS);
    expect(await db.workspaceLimits.count({ where: { workspaceId: stranger.workspaceId } })).toBe(0);
    // Lower is theirs to set.
    expect((await call(web, stranger, "PUT", "/api/v1/limits", { maxVUs: 10 })).body.maxVUs).toBe(10);
  });

  it("only the instance admin sets the ceilings; any member reads them", async () => {
    const res = await call(web, stranger, "PUT", "/api/v1/instance/ceilings", { maxVUs: 1_000_000 });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain("instance admin");
    expect((await call(web, stranger, "GET", "/api/v1/instance/ceilings")).body).toEqual(DEFAULT_INSTANCE_CEILINGS);
    expect((await db.instanceCeilings.findFirst())?.maxVUs ?? DEFAULT_INSTANCE_CEILINGS.maxVUs).toBe(DEFAULT_INSTANCE_CEILINGS.maxVUs);
    // The admin raises one; the owner may then go up to it, not past it.
    const raised = await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxVUs: 5000 });
    expect(raised.body).toEqual({ ...DEFAULT_INSTANCE_CEILINGS, maxVUs: 5000 });
    expect((await call(web, stranger, "PUT", "/api/v1/limits", { maxVUs: 5000 })).status).toBe(200);
    expect((await call(web, stranger, "PUT", "/api/v1/limits", { maxVUs: 5001 })).status).toBe(422);
    // The settings page: the admin gets the form, an owner who is not the admin the ceilings to read.
    const cookieOf = ({ name, value }: { name: string; value: string }) => ({ cookie: `${name}=${value}` });
    const adminPage = await call(web, { headers: cookieOf(owner.sessionCookie) }, "GET", "/settings");
    expect(adminPage.status).toBe(200);
    expect(adminPage.text).toContain('data-testid="ceilings-form"');
    const ownerPage = await call(web, { headers: await sessionOf(db, auth, web, stranger) }, "GET", "/settings");
    expect(ownerPage.text).toContain('data-testid="ceilings"');
    expect(ownerPage.text).toContain("5000");
    expect(ownerPage.text).not.toContain('data-testid="ceilings-form"');
  });

  it("a ceiling lowered later binds an existing workspace: its limits read lower, saving is refused, and the worker refuses its run", async () => {
    // Saved under the default ceilings (5 VUs).
    expect((await call(web, stranger, "POST", "/api/v1/targets", taewaTarget("ceiling-target"))).status).toBe(201);
    expect((await call(web, stranger, "POST", "/api/v1/workloads", shortRamp("five-vus", { vus: 5 }))).status).toBe(201);
    await call(web, stranger, "PUT", "/api/v1/limits", { maxVUs: 1000 });
    expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxVUs: 2 })).status).toBe(200);

    expect((await call(web, stranger, "GET", "/api/v1/limits")).body.maxVUs).toBe(2);
    const save = await call(web, stranger, "POST", "/api/v1/workloads", shortRamp("five-vus-again", { vus: 5 }));
    expect(save.status).toBe(422);
    expect(save.body.error.message).toContain("the instance's ceiling maxVUs is 2");

    const created = await call(web, stranger, "POST", "/api/v1/runs", { target: "ceiling-target", workload: "five-vus" });
    expect(created.status).toBe(201);
    const run = await waitForFinal(db, created.body.id, 120_000);
    expect(run.status).toBe("FAILED");
    expect(run.error).toContain("the instance's ceiling maxVUs is 2");
    expect(run.steps.map((s) => s.name)).not.toContain("PROVISION");
  });

  it("a lowered concurrency ceiling refuses a new run of an existing workspace (429 naming the ceiling)", async () => {
    expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxConcurrentRuns: 1 })).status).toBe(200);
    const queued = await db.run.create({ data: { workspaceId: stranger.workspaceId, status: "QUEUED", name: "held" } });
    try {
      const res = await call(web, stranger, "POST", "/api/v1/runs", { target: "ceiling-target", workload: "five-vus" });
      expect(res.status).toBe(429);
      expect(res.body.error.message).toContain("the instance's ceiling maxConcurrentRuns is 1");
    } finally {
      await db.run.delete({ where: { id: queued.id } });
    }
  });
});

describe("runs per day", () => {
  it("the ceiling maxRunsPerDay refuses the N+1th run and a study that would pass it, naming the ceiling", async () => {
    const daily = await newMember(db, auth, "daily@limits.test", await newWorkspace(db, "daily"), "owner");
    expect((await call(web, daily, "POST", "/api/v1/targets", taewaTarget("daily-target"))).status).toBe(201);
    expect((await call(web, daily, "POST", "/api/v1/workloads", shortRamp("daily-load", { vus: 1, holdSeconds: 1 }))).status).toBe(201);
    expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxRunsPerDay: 2 })).status).toBe(200);
    const start = () => call(web, daily, "POST", "/api/v1/runs", { target: "daily-target", workload: "daily-load" });
    for (let i = 0; i < 2; i++) {
      const ok = await start();
      expect(ok.status).toBe(201);
      // Stopped at once: the day's count is of runs created, finished or not.
      await call(web, daily, "POST", `/api/v1/runs/${ok.body.id}/abort`, {});
    }
    const third = await start();
    expect(third.status).toBe(429);
    expect(third.body.error.message).toBe(
      "2 runs were created in the last 24 hours and this adds 1; the instance's ceiling maxRunsPerDay is 2",
    );
    const study = await call(web, daily, "POST", "/api/v1/studies", {
      name: "daily-study",
      targets: ["daily-target"],
      workloads: ["daily-load"],
      repetitions: 1,
    });
    expect(study.status).toBe(429);
    expect(study.body.error.message).toContain("maxRunsPerDay");
    expect(await db.run.count({ where: { workspaceId: daily.workspaceId } })).toBe(2);
    // The workspace's own lower limit binds the same way, named as the workspace's.
    expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxRunsPerDay: 100 })).status).toBe(200);
    expect((await call(web, daily, "PUT", "/api/v1/limits", { maxRunsPerDay: 2 })).status).toBe(200);
    expect((await start()).body.error.message).toContain("the workspace's limit maxRunsPerDay is 2");
  });
});
