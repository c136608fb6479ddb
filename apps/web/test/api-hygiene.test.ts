// Web hygiene and workspace limits on the real stack: mutations refuse cross-site, non-JSON and oversized
// requests; every answer carries the security headers; workloads over a limit (saved or inline in a study) are
// refused naming the limit; run creation is limited; share links expire; a single run can be aborted; the audit
// log says who did what.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE_LIMITS } from "@opsbench/core";
import { openTestStack, shortRamp, taewaTarget, waitForFinal, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;

beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${web}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
const post = (path: string, body?: unknown, headers?: Record<string, string>) => send("POST", path, body, headers);

async function errorOf(res: Response): Promise<{ code: string; message: string; issues?: Array<{ path: string; message: string }> }> {
  const body = (await res.json()) as { error: { code: string; message: string; issues?: Array<{ path: string; message: string }> } };
  return body.error;
}

const setLimits = async (changes: Record<string, number>) => {
  const res = await send("PUT", "/api/v1/limits", changes);
  expect(res.status).toBe(200);
  return res.json();
};

describe("mutations: same origin, JSON only, capped bodies", () => {
  it("refuses a text/plain POST with 415 without parsing it, and creates nothing", async () => {
    const before = await stack.db.run.count();
    const res = await post("/api/v1/runs", JSON.stringify({ target: "t", workload: "w" }), { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe("unsupported_media_type");
    // A form post, and a body with no type at all, are refused the same way.
    expect((await post("/api/v1/targets", "name=x", { "content-type": "application/x-www-form-urlencoded" })).status).toBe(415);
    const untyped = await fetch(`${web}/api/v1/targets`, { method: "POST", body: new Blob(["{}"]) });
    expect(untyped.status).toBe(415);
    expect(await stack.db.run.count()).toBe(before);
  });

  it("refuses a cross-site Origin (403), and a cookie-carrying mutation without an Origin; same-origin goes through", async () => {
    const cross = await post("/api/v1/runs", { target: "t", workload: "w" }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect((await errorOf(cross)).message).toContain("evil.example");
    expect((await post("/api/v1/runs", { target: "t", workload: "w" }, { cookie: "session=abc" })).status).toBe(403);
    // The same request from the app's own origin reaches the handler (which refuses the unknown names).
    const same = await post("/api/v1/runs", { target: "t", workload: "w" }, { origin: new URL(web).origin, cookie: "session=abc" });
    expect(same.status).toBe(422);
    // A bearer token is not sent by browsers on their own: no Origin needed.
    expect((await post("/api/v1/runs", { target: "t", workload: "w" }, { authorization: "Bearer x", cookie: "a=b" })).status).toBe(422);
  });

  it("refuses a body over 2 MiB with 413; a workload's over 2 MiB plus room for the script files' cap", async () => {
    const big = JSON.stringify({ name: "big", spec: { kind: "endpoint", url: `https://example.com/${"x".repeat(2 * 1024 * 1024 + 10)}` } });
    const res = await post("/api/v1/targets", big);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("payload_too_large");
    // The workload route takes the script files' cap (OPSBENCH_MAX_SCRIPT_FILES_BYTES, 1,000,000 by default) as
    // base64 on top of the 2 MiB: 3.4 MB here. Over that, the same 413.
    const script = (bytes: number) => JSON.stringify({ name: "big", spec: { kind: "script", source: "x".repeat(bytes) } });
    const over = await post("/api/v1/workloads", script(3_600_000));
    expect(over.status).toBe(413);
    expect((await errorOf(over)).code).toBe("payload_too_large");
  });

  it("sends the security headers on pages and API answers", async () => {
    for (const path of ["/", "/api/v1/targets", "/api-docs"]) {
      const res = await fetch(`${web}${path}`);
      expect(res.status, path).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("default-src 'self'");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      await res.body?.cancel();
    }
  });
});

describe("workspace limits", () => {
  afterEach(async () => {
    await setLimits({ ...DEFAULT_WORKSPACE_LIMITS });
  });

  it("reads the defaults and sets some limits, keeping the others", async () => {
    expect(await (await fetch(`${web}/api/v1/limits`)).json()).toEqual(DEFAULT_WORKSPACE_LIMITS);
    const set = await setLimits({ maxVUs: 50 });
    expect(set).toEqual({ ...DEFAULT_WORKSPACE_LIMITS, maxVUs: 50 });
    expect((await send("PUT", "/api/v1/limits", { maxVUs: -1 })).status).toBe(422);
  });

  it("refuses workloads over a limit, from the compiled script's real options, with a message naming the limit", async () => {
    await setLimits({ maxDurationSeconds: 60, maxVUs: 50, maxArrivalRate: 100 });
    const long = await post("/api/v1/workloads", shortRamp("limit-long", { holdSeconds: 120 }));
    expect(long.status).toBe(422);
    expect((await errorOf(long)).message).toContain("maxDurationSeconds");

    // A user's own script: the options k6 derives (99999h, 100,000 VUs) are what counts.
    const script = `import http from "k6/http";\nexport const options = { vus: 100000, duration: "99999h" };\nexport default function () { http.get(__ENV.OPSBENCH_BASE_URL); }\n`;
    const huge = await post("/api/v1/workloads", { name: "limit-huge", spec: { kind: "script", source: script } });
    expect(huge.status).toBe(422);
    const err = await errorOf(huge);
    expect(err.message).toContain("maxVUs");
    expect(err.message).toContain("maxDurationSeconds");
    expect(err.issues?.map((i) => i.path)).toEqual(["spec", "spec"]);

    const rate = await post("/api/v1/workloads", {
      name: "limit-rate",
      spec: {
        kind: "constant-arrival-rate",
        rate: 500,
        duration: "10s",
        preAllocatedVUs: 5,
        requests: [{ name: "r", method: "GET", path: "/" }],
      },
    });
    expect(rate.status).toBe(422);
    expect((await errorOf(rate)).message).toContain("maxArrivalRate");

    // Within the limits: saved.
    expect((await post("/api/v1/workloads", shortRamp("limit-ok", { vus: 2, holdSeconds: 2 }))).status).toBe(201);
    expect(await stack.db.workload.count({ where: { name: { in: ["limit-long", "limit-huge", "limit-rate"] } } })).toBe(0);
  });

  it("validates a study's inline workloads like saved ones, and refuses a study over maxStudyRuns", async () => {
    await setLimits({ maxVUs: 50, maxStudyRuns: 4 });
    const target = taewaTarget("limit-target");
    const overVus = await post("/api/v1/studies", {
      name: "limit-study",
      targets: [target],
      workloads: [shortRamp("inline-ok", { vus: 2 }), shortRamp("inline-big", { vus: 80 })],
      repetitions: 1,
    });
    expect(overVus.status).toBe(422);
    const err = await errorOf(overVus);
    expect(err.issues?.[0]?.path).toBe("workloads.1.spec");
    expect(err.message).toContain("maxVUs");

    const broken = await post("/api/v1/studies", {
      name: "limit-study",
      targets: [target],
      workloads: [{ name: "inline-broken", spec: { kind: "script", source: "export default function ( {" } }],
      repetitions: 1,
    });
    expect(broken.status).toBe(422);
    expect((await errorOf(broken)).issues?.[0]?.path).toBe("workloads.0.spec.source");

    const tooMany = await post("/api/v1/studies", { name: "limit-study", targets: [target], workloads: ["limit-ok"], repetitions: 5 });
    expect(tooMany.status).toBe(422);
    expect((await errorOf(tooMany)).message).toContain("maxStudyRuns");
    expect(await stack.db.study.count({ where: { name: "limit-study" } })).toBe(0);
  });

  it("refuses run creation beyond the concurrent-runs limit and the per-minute rate (429)", async () => {
    expect((await post("/api/v1/targets", taewaTarget("limit-target"))).status).toBe(201);
    expect((await post("/api/v1/workloads", shortRamp("limit-ok", { vus: 2, holdSeconds: 2 }))).status).toBe(201);
    const active = await stack.scope.limits.activeWork();
    await setLimits({ maxConcurrentRuns: active + 1 });
    const first = await post("/api/v1/runs", { target: "limit-target", workload: "limit-ok" });
    expect(first.status).toBe(201);
    const firstId = ((await first.json()) as { id: string }).id;
    const second = await post("/api/v1/runs", { target: "limit-target", workload: "limit-ok" });
    expect(second.status).toBe(429);
    expect((await errorOf(second)).message).toContain("maxConcurrentRuns");
    await waitForFinal(stack.db, firstId);

    await setLimits({ runCreationsPerMinute: 1 });
    // A new minute may have begun (then the first of these is allowed); the second is refused either way.
    const once = await post("/api/v1/runs", { target: "limit-target", workload: "limit-ok" });
    const twice = await post("/api/v1/runs", { target: "limit-target", workload: "limit-ok" });
    expect(twice.status).toBe(429);
    expect((await errorOf(twice)).message).toContain("run creations a minute");
    if (once.status === 201) await waitForFinal(stack.db, ((await once.json()) as { id: string }).id);
    else expect(once.status).toBe(429);
  });
});

describe("share links expire", () => {
  it("answers until its expiry, then 404 like a revoked link; a past expiry is refused", async () => {
    const run = await stack.db.run.findFirst({ where: { status: "SUCCEEDED" }, select: { id: true } });
    expect(run).not.toBeNull();
    const runId = run!.id;
    const past = await post("/api/v1/shares", { kind: "run", subject: { runId }, expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(422);
    const expiresAt = new Date(Date.now() + 2500).toISOString();
    const made = await post("/api/v1/shares", { kind: "run", subject: { runId }, expiresAt });
    expect(made.status).toBe(201);
    const link = (await made.json()) as { id: string; token: string; expiresAt: string };
    expect(new Date(link.expiresAt).getTime()).toBe(new Date(expiresAt).getTime());
    expect((await fetch(`${web}/api/v1/public/shares/${link.token}`)).status).toBe(200);
    const listed = (await (await fetch(`${web}/api/v1/shares`)).json()) as Array<{ id: string; expiresAt: string | null }>;
    expect(listed.find((l) => l.id === link.id)?.expiresAt).toBe(link.expiresAt);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await fetch(`${web}/api/v1/public/shares/${link.token}`)).status).toBe(404);
    expect((await fetch(`${web}/share/${link.token}`)).status).toBe(404);
  });
});

describe("aborting a single run, and the audit log", () => {
  it("stops a run under way within seconds (ABORTED, torn down) and aborts a queued one at once", async () => {
    expect((await post("/api/v1/targets", taewaTarget("abort-target"))).status).toBe(201);
    expect((await post("/api/v1/workloads", shortRamp("abort-long", { vus: 2, holdSeconds: 120 }))).status).toBe(201);
    const start = async () => {
      const res = await post("/api/v1/runs", { target: "abort-target", workload: "abort-long" });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const running = await start();
    const queued = await start(); // waits behind the first: one load test at a time
    // Deploying and resetting the target before the load can take a minute when the suite's other files load the machine.
    const until = Date.now() + 150_000;
    while ((await stack.db.run.findUniqueOrThrow({ where: { id: running } })).status !== "RUNNING") {
      if (Date.now() > until) throw new Error("the run never started its load");
      await new Promise((r) => setTimeout(r, 300));
    }
    const queuedAbort = await post(`/api/v1/runs/${queued}/abort`);
    expect(await queuedAbort.json()).toEqual({ id: queued, aborted: true, status: "ABORTED" });

    const asked = Date.now();
    const abort = await post(`/api/v1/runs/${running}/abort`);
    expect(abort.status).toBe(200);
    expect(await abort.json()).toMatchObject({ id: running, aborted: true });
    const view = await waitForFinal(stack.db, running, 90_000);
    expect(view.status).toBe("ABORTED");
    expect(view.error).toBe("aborted by request");
    expect(Date.now() - asked).toBeLessThan(45_000);
    const teardown = await stack.db.runStep.findFirst({ where: { runId: running, name: "TEARDOWN" } });
    expect(teardown?.status).toBe("SUCCEEDED");
    // The queued one never ran.
    const q = await stack.db.run.findUniqueOrThrow({ where: { id: queued } });
    expect(q.status).toBe("ABORTED");
    expect(q.startedAt).toBeNull();

    const log = (await (await fetch(`${web}/api/v1/audit?limit=100`)).json()) as Array<{
      actor: string;
      action: string;
      subjectId: string;
    }>;
    const about = (id: string) => log.filter((e) => e.subjectId === id).map((e) => e.action);
    expect(about(running).sort()).toEqual(["run.abort", "run.start"]);
    expect(about(queued).sort()).toEqual(["run.abort", "run.start"]);
    // Sign-in is off in this file (OPSBENCH_AUTH=off): every request acts as the local owner.
    expect(log.every((e) => e.actor === "local")).toBe(true);
    expect(log.map((e) => e.action)).toEqual(expect.arrayContaining(["target.create", "workload.create", "limits.set", "share.create"]));
    // The page shows the same log.
    const page = await (await fetch(`${web}/audit`)).text();
    expect(page).toContain("run.abort");
  }, 300_000);
});
