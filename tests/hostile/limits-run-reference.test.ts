// "% of a measured maximum" (issue 20): a workload's `rate.percentOfRunMax.runId` was resolved without a workspace
// filter, so a member of one workspace could aim a rate at another workspace's run and learn of it (its maximum
// throughput became the rate, its status came back in an error). Now the id is looked up through the workspace's
// scope: at the API (saving a workload, an inline study workload) and in the worker (a run made from a row that
// names it anyway): another workspace's run is "no run <id> in this workspace", like a made-up id.
import { randomUUID } from "node:crypto";
import type { WorkloadInput } from "@opsbench/core";
import { type Db, defaultWorkspaceId } from "@opsbench/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shortRamp, taewaTarget, waitForFinal } from "../helpers";
import { startSignedInWeb } from "../test-identity";
import { call, newWorkspace, openMembers } from "./limits-members";

const { web, owner } = await startSignedInWeb();
const ours = { headers: { authorization: `Bearer ${owner.token}` } };
let db: Db;
let theirRun: string;

/** Their run's measured maximum: a number that must not surface anywhere in our workspace. */
const THEIR_MAX_RPS = 4321.5;

const relativeRate = (name: string, runId: string): WorkloadInput => {
  const ramp = shortRamp(name).spec as Extract<WorkloadInput["spec"], { kind: "ramping-vus" }>;
  return {
    name,
    spec: {
      kind: "constant-arrival-rate",
      rate: { percentOfRunMax: 10, runId },
      timeUnit: "1s",
      duration: "3s",
      preAllocatedVUs: 2,
      maxVUs: 2,
      gracefulStop: "2s",
      requestTimeout: ramp.requestTimeout,
      requests: ramp.requests,
      thresholds: {},
    } as WorkloadInput["spec"],
  };
};

beforeAll(async () => {
  ({ db } = await openMembers());
  const theirs = await newWorkspace(db, "theirs");
  const run = await db.run.create({
    data: {
      workspaceId: theirs,
      status: "SUCCEEDED",
      name: "their secret benchmark",
      summary: { maxThroughput: { rps: THEIR_MAX_RPS, atSecond: 10 } },
    },
  });
  theirRun = run.id;
});
afterAll(() => db.$disconnect());

describe("percentOfRunMax.runId goes through the workspace scope", () => {
  it("saving a workload that names another workspace's run is refused (422 naming the id), exactly as an unknown id, and saves nothing", async () => {
    const res = await call(web, ours, "POST", "/api/v1/workloads", relativeRate("borrowed-max", theirRun));
    expect(res.status).toBe(422);
    expect(res.body.error.issues).toEqual([
      { path: "spec.rate.runId", message: expect.stringContaining(`no run ${theirRun} in this workspace`) },
    ]);
    for (const leak of ["4321", "SUCCEEDED", "secret benchmark", "theirs"]) expect(res.text).not.toContain(leak);
    const unknown = randomUUID();
    const made = await call(web, ours, "POST", "/api/v1/workloads", relativeRate("borrowed-max", unknown));
    expect(made.body.error.message.replaceAll(unknown, "<id>")).toBe(res.body.error.message.replaceAll(theirRun, "<id>"));
    expect(await db.workload.count({ where: { name: "borrowed-max" } })).toBe(0);
  });

  it("an inline study workload naming it is refused the same way, and no study or run is made", async () => {
    const res = await call(web, ours, "POST", "/api/v1/studies", {
      name: "borrowed",
      targets: [taewaTarget("ref-target")],
      workloads: [relativeRate("borrowed-inline", theirRun)],
      repetitions: 1,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.issues[0].path).toBe("workloads.0.spec.rate.runId");
    expect(res.text).not.toContain("4321");
    expect(await db.study.count({ where: { name: "borrowed" } })).toBe(0);
  });

  it("the worker, given a run whose workload names it anyway, fails it as 'does not exist in this workspace' and resolves nothing", async () => {
    const ws = await defaultWorkspaceId(db);
    expect((await call(web, ours, "POST", "/api/v1/targets", taewaTarget("ref-target"))).status).toBe(201);
    // Written directly, as a row saved before this check existed would be.
    const w = relativeRate("smuggled", theirRun);
    await db.workload.create({ data: { workspaceId: ws, name: w.name, kind: w.spec.kind, spec: w.spec } });
    const created = await call(web, ours, "POST", "/api/v1/runs", { target: "ref-target", workload: "smuggled" });
    expect(created.status).toBe(201);
    const run = await waitForFinal(db, created.body.id, 120_000);
    expect(run.status).toBe("FAILED");
    expect(run.error).toContain(`run ${theirRun}'s maximum throughput, but that run does not exist in this workspace`);
    expect(run.steps.map((s) => s.name)).not.toContain("PROVISION");
    const row = await db.run.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(JSON.stringify(row)).not.toContain("4321");
    const view = await call(web, ours, "GET", `/api/v1/runs/${created.body.id}`);
    expect(view.text).not.toContain("4321");
  });
});
