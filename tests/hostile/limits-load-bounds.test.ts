// Security review, finding 9: limits that did not bound load. The arrival-rate limit was checked per scenario (limit
// 10: ten scenarios at 10 each were accepted and reached 100 req/s); VUs did not bound concurrency (one VU's
// http.batch sent all its requests at once); workload saves, each a script check by a worker, had no rate limit (100
// in 11.7 s). Now arrival rates (and VUs) are summed over the scenarios that run at once, the engine holds at most
// the run's maxVUs requests in flight, and saves are rate-limited per workspace (429 with Retry-After).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SCRIPT_CHECKS_PER_MINUTE, workloadSpec } from "@opsbench/core";
import type { Auth, Db } from "@opsbench/db";
import { startRun } from "@opsbench/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, waitForFinal } from "../helpers";
import { startSignedInWeb } from "../test-identity";
import { call, newMember, newWorkspace, openMembers } from "./limits-members";

const { web } = await startSignedInWeb();
let db: Db;
let auth: Auth;

beforeAll(async () => {
  ({ db, auth } = await openMembers());
});
afterAll(() => db.$disconnect());

const script = (source: string) => ({ kind: "script", source });
const arrivalScenario = (extra: Record<string, unknown> = {}) => ({
  executor: "constant-arrival-rate",
  rate: 10,
  timeUnit: "1s",
  duration: "10s",
  preAllocatedVUs: 1,
  maxVUs: 2,
  ...extra,
});
const withScenarios = (scenarios: Record<string, unknown>) =>
  script(`export const options = { scenarios: ${JSON.stringify(scenarios)} };\nexport default function () {}\n`);

describe("arrival rates are summed over the scenarios that run at once", () => {
  it("ten scenarios at the limit each are refused, naming the sum; the same ten one after another are not", async () => {
    const owner = await newMember(db, auth, "rates@bounds.test", await newWorkspace(db, "rates"), "owner");
    expect((await call(web, owner, "PUT", "/api/v1/limits", { maxArrivalRate: 10 })).status).toBe(200);
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${i}`, arrivalScenario()]));
    const refused = await call(web, owner, "POST", "/api/v1/workloads", { name: "ten-at-once", spec: withScenarios(ten) });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toContain(
      "starts up to 100 iterations/s, summed over the arrival-rate scenarios that run at once; the workspace's limit maxArrivalRate is 10",
    );
    expect(await db.workload.count({ where: { workspaceId: owner.workspaceId } })).toBe(0);

    // One after another (each starts when the one before ends), they never add up.
    const inTurn = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${i}`, arrivalScenario({ startTime: `${i * 10}s` })]));
    expect((await call(web, owner, "POST", "/api/v1/workloads", { name: "ten-in-turn", spec: withScenarios(inTurn) })).status).toBe(201);
    // Two that overlap by a second add up.
    const overlap = { a: arrivalScenario({ rate: 6 }), b: arrivalScenario({ rate: 6, startTime: "9s" }) };
    const res = await call(web, owner, "POST", "/api/v1/workloads", { name: "overlap", spec: withScenarios(overlap) });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain("starts up to 12 iterations/s");
  });
});

describe("workload saves and script checks are rate-limited per workspace", () => {
  it(`more than ${SCRIPT_CHECKS_PER_MINUTE} saves in a minute are answered 429 with Retry-After and a message; another workspace is not held`, async () => {
    const saver = await newMember(db, auth, "saves@bounds.test", await newWorkspace(db, "saves"), "editor");
    const other = await newMember(db, auth, "other@bounds.test", await newWorkspace(db, "saves-other"), "editor");
    const save = (who: typeof saver, i: number) =>
      call(web, who, "POST", "/api/v1/workloads", {
        name: `w${i}`,
        spec: script(`export const options = { vus: 1, iterations: 1 };\nexport default function () {}\n`),
      });
    const statuses: number[] = [];
    for (let i = 0; i < SCRIPT_CHECKS_PER_MINUTE; i++) statuses.push((await save(saver, i)).status);
    expect(statuses.every((s) => s === 201)).toBe(true);
    const res = await fetch(`${web}/api/v1/workloads`, {
      method: "POST",
      headers: { ...saver.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "one-too-many", spec: script("export default function () {}\n") }),
    });
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toBe(
      `more than ${SCRIPT_CHECKS_PER_MINUTE} script checks (workload saves) a minute in this workspace; try again in ${retryAfter} s`,
    );
    expect(await db.workload.count({ where: { workspaceId: saver.workspaceId } })).toBe(SCRIPT_CHECKS_PER_MINUTE);
    expect((await save(other, 0)).status).toBe(201);
  }, 120_000);
});

describe("VUs bound the requests in flight", () => {
  let stack: Awaited<ReturnType<typeof openTestStack>>;
  let server: http.Server;
  let inFlight = 0;
  let mostInFlight = 0;
  let served = 0;

  beforeAll(async () => {
    stack = await openTestStack();
    // Each answer waits 300 ms, so requests sent together are seen together.
    server = http.createServer((_req, res) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        served++;
        res.end("ok");
      }, 300);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    await stack.scope.targets.put({
      name: "in-flight-counter",
      kind: "endpoint",
      spec: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    });
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await stack?.close();
  });

  it("one VU's http.batch of 24 requests under maxVUs 3 never has more than 3 in flight at the server; all 24 are sent", async () => {
    const before = await stack.scope.limits.own();
    await stack.scope.limits.set({ maxVUs: 3 });
    try {
      const source = `import http from "k6/http";
export const options = { vus: 1, iterations: 1, batch: 24, batchPerHost: 24 };
export default function () {
  const url = __ENV.OPSBENCH_BASE_URL + "/";
  const answers = http.batch(Array.from({ length: 24 }, () => ["GET", url]));
  if (answers.some((r) => r.status !== 200)) throw new Error("a request of the batch failed");
}
`;
      await stack.scope.workloads.put({ name: "wide-batch", spec: workloadSpec.parse({ kind: "script", source }) });
      mostInFlight = 0;
      served = 0;
      const run = await startRun(stack.scope, stack.queue, { targetName: "in-flight-counter", workloadName: "wide-batch" });
      const view = await waitForFinal(stack.db, run.id);
      expect(view.error).toBeNull();
      expect(view.status).toBe("SUCCEEDED");
      expect(served).toBeGreaterThanOrEqual(24);
      expect(mostInFlight).toBeGreaterThan(1);
      expect(mostInFlight).toBeLessThanOrEqual(3);
    } finally {
      await stack.scope.limits.set({ maxVUs: before.maxVUs });
    }
  }, 180_000);
});
