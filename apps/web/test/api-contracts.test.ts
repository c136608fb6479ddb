// Every /api/v1 route against the real stack, each answer checked against the schema its contract declares
// (apps/web/lib/api/contracts.ts); and every route file has a contract, every contract a route file.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k6ImportAggregator, toK6ImportUpload } from "@opsbench/core";
import { API_CONTRACTS, type RouteContract } from "../lib/api/contracts";
import { startFakeKubeApi } from "../../../tests/fake-kube-api";
import { openTestStack, shortRamp, taewaTarget, waitForFinal, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
const apiDir = path.resolve(import.meta.dirname, "../app/api/v1");
let stack: Awaited<ReturnType<typeof openTestStack>>;

/** "METHOD /api/v1/..." of every handler a route file exports ([id] written {id}, as the contracts do). */
function routesOnDisk(): string[] {
  const files = readdirSync(apiDir, { recursive: true, encoding: "utf8" }).filter((f) => path.basename(f) === "route.ts");
  return files.flatMap((file) => {
    const urlPath = `/api/v1/${path.dirname(file).split(path.sep).join("/")}`.replace(/\[(\w+)\]/g, "{$1}");
    const source = readFileSync(path.join(apiDir, file), "utf8");
    const methods = [...source.matchAll(/export (?:const|async function) (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]);
    return methods.map((m) => `${m} ${urlPath}`);
  });
}

const contracts: Record<string, RouteContract> = API_CONTRACTS;
const called = new Set<string>();

/** Calls a route and checks the answer against its contract: a declared status, and a body its schema accepts. */
async function call(
  key: keyof typeof API_CONTRACTS,
  url: string,
  init: { body?: unknown; raw?: { body: string; headers: Record<string, string> } } = {},
): Promise<{ status: number; body: unknown }> {
  const contract = contracts[key]!;
  const res = await fetch(`${web}${url}`, {
    method: contract.method,
    ...(init.body !== undefined ? { headers: { "content-type": "application/json" }, body: JSON.stringify(init.body) } : {}),
    ...(init.raw ? { headers: init.raw.headers, body: init.raw.body } : {}),
  });
  const declared = contract.responses[res.status];
  expect(declared, `${key} answered ${res.status}, which its contract does not declare`).toBeDefined();
  called.add(`${key} ${res.status}`);
  if (declared && "contentType" in declared) {
    const type = res.headers.get("content-type") ?? "";
    expect(
      declared.contentType.split(", ").some((t) => type.startsWith(t)),
      `${key}: content-type ${type}`,
    ).toBe(true);
    await res.body?.cancel();
    return { status: res.status, body: null };
  }
  const body = await res.json();
  const parsed = declared && "safeParse" in declared ? declared.safeParse(body) : null;
  expect(parsed?.success, `${key} ${res.status}: ${parsed?.error?.message}\n${JSON.stringify(body).slice(0, 2000)}`).toBe(true);
  return { status: res.status, body };
}

const field = (body: unknown, key: string): string => {
  const v = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[key] : undefined;
  if (typeof v !== "string") throw new Error(`expected a string at ${key} in ${JSON.stringify(body)}`);
  return v;
};

beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

describe("/api/v1 route contracts", () => {
  it("has a contract for every route file, and a route file for every contract", () => {
    const onDisk = routesOnDisk().sort();
    expect(onDisk.length).toBeGreaterThan(15);
    expect(onDisk).toEqual(Object.keys(API_CONTRACTS).sort());
    for (const [key, c] of Object.entries(contracts)) expect(key).toBe(`${c.method} ${c.path}`);
  });

  it("answers every route as its contract says, errors included", async () => {
    const missingId = "00000000-0000-4000-8000-000000000000";
    // Catalog.
    expect((await call("POST /api/v1/targets", "/api/v1/targets", { body: taewaTarget("contract-target") })).status).toBe(201);
    expect((await call("POST /api/v1/targets", "/api/v1/targets", { body: { name: "x", kind: "mainframe", spec: {} } })).status).toBe(422);
    const targets = await call("GET /api/v1/targets", "/api/v1/targets");
    expect(JSON.stringify(targets.body)).toContain("contract-target");
    // The proof of ownership a target's host needs (docs/security.md "Egress policy"): none for one opsbench starts.
    expect((await call("GET /api/v1/targets/{id}/verification", "/api/v1/targets/contract-target/verification")).body).toMatchObject({
      target: { name: "contract-target" },
      token: null,
    });
    expect(
      (
        await call("POST /api/v1/targets", "/api/v1/targets", {
          body: { name: "contract-remote", kind: "endpoint", spec: { url: "https://shop.example.com:8443" } },
        })
      ).status,
    ).toBe(201);
    const proof = await call("GET /api/v1/targets/{id}/verification", "/api/v1/targets/contract-remote/verification");
    expect(proof.body).toMatchObject({
      host: "shop.example.com",
      token: expect.stringMatching(/^[0-9a-f]{40}$/),
      wellKnownUrl: expect.stringMatching(/^https:\/\/shop\.example\.com:8443\/\.well-known\/opsbench-verify\/[0-9a-f]{40}$/),
      dnsTxt: { name: "shop.example.com", value: expect.stringMatching(/^opsbench-verify=[0-9a-f]{40}$/) },
    });
    expect((await call("GET /api/v1/targets/{id}/verification", `/api/v1/targets/${missingId}/verification`)).status).toBe(404);
    const workload = shortRamp("contract-load", { vus: 2, holdSeconds: 2 });
    expect((await call("POST /api/v1/workloads", "/api/v1/workloads", { body: workload })).status).toBe(201);
    expect((await call("POST /api/v1/workloads", "/api/v1/workloads", { body: { name: "x", spec: { kind: "nope" } } })).status).toBe(422);
    await call("GET /api/v1/workloads", "/api/v1/workloads");
    await call("GET /api/v1/workloads/presets", "/api/v1/workloads/presets?timeScale=0.1");
    expect((await call("GET /api/v1/workloads/presets", "/api/v1/workloads/presets?timeScale=0")).status).toBe(422);

    // A k6 result file's aggregate, as `opsbench import k6` uploads it; one whose counts do not add up is refused.
    const k6 = k6ImportAggregator("json");
    for (const [i, ms] of [0, 400, 1300].entries())
      k6.line(
        JSON.stringify({
          metric: "http_req_duration",
          type: "Point",
          data: { time: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString(), value: 10 + i, tags: { name: "home", status: "200" } },
        }),
        i + 1,
      );
    const upload = toK6ImportUpload("contract-import", { path: "k6.json", format: "json", gzip: false, bytes: 300 }, k6.finish());
    expect((await call("POST /api/v1/imports/k6", "/api/v1/imports/k6", { body: upload })).status).toBe(201);
    const miscounted = await call("POST /api/v1/imports/k6", "/api/v1/imports/k6", { body: { ...upload, requests: 4 } });
    expect(miscounted.status).toBe(422);

    // A run, to its end.
    const created = await call("POST /api/v1/runs", "/api/v1/runs", {
      body: { target: "contract-target", workload: "contract-load", provenance: { branch: "contract-start", pullRequest: 5 } },
    });
    expect(created.status).toBe(201);
    const runId = field(created.body, "id");
    const badLabel = { target: "contract-target", workload: "contract-load", provenance: { labels: { "bad key": "v" } } };
    const refusedLabel = await call("POST /api/v1/runs", "/api/v1/runs", { body: badLabel });
    expect(refusedLabel.status).toBe(422);
    expect(JSON.stringify(refusedLabel.body)).toContain("provenance.labels.bad key");
    expect((await call("POST /api/v1/runs", "/api/v1/runs", { body: { target: "nope", workload: "nope" } })).status).toBe(422);
    await call("GET /api/v1/runs/{id}/events", `/api/v1/runs/${runId}/events`);
    expect((await waitForFinal(stack.db, runId)).status).toBe("SUCCEEDED");
    await call("GET /api/v1/runs", "/api/v1/runs");
    await call("GET /api/v1/runs/{id}", `/api/v1/runs/${runId}`);
    expect((await call("GET /api/v1/runs/{id}", `/api/v1/runs/${missingId}`)).status).toBe(404);
    expect((await call("GET /api/v1/runs/{id}/events", `/api/v1/runs/${missingId}/events`)).status).toBe(404);
    const lateAbort = await call("POST /api/v1/runs/{id}/abort", `/api/v1/runs/${runId}/abort`);
    expect(lateAbort.body).toEqual({ id: runId, aborted: false, status: "SUCCEEDED" });
    expect((await call("POST /api/v1/runs/{id}/abort", `/api/v1/runs/${missingId}/abort`)).status).toBe(404);
    await call("GET /api/v1/runs/{id}/summary", `/api/v1/runs/${runId}/summary?from=0&to=2`);
    expect((await call("GET /api/v1/runs/{id}/summary", `/api/v1/runs/${runId}/summary?from=2&to=1`)).status).toBe(422);
    expect((await call("GET /api/v1/runs/{id}/summary", `/api/v1/runs/${missingId}/summary?from=0&to=1`)).status).toBe(404);

    // Its provenance: as created, then set (replacing it) and filtered by; a bad one refused naming the field.
    const view = await call("GET /api/v1/runs/{id}", `/api/v1/runs/${runId}`);
    expect((view.body as { provenance: unknown }).provenance).toEqual({
      commit: null,
      branch: "contract-start",
      pullRequest: 5,
      buildUrl: null,
      labels: {},
      series: null,
    });
    const provenance = { commit: "0123abcd", branch: "contract-branch", labels: { suite: "contracts" } };
    const set = await call("PUT /api/v1/runs/{id}/provenance", `/api/v1/runs/${runId}/provenance`, { body: provenance });
    expect(set.body).toEqual({ id: runId, provenance: { ...provenance, pullRequest: null, buildUrl: null, series: null } });
    const bad = await call("PUT /api/v1/runs/{id}/provenance", `/api/v1/runs/${runId}/provenance`, { body: { commit: "xyz" } });
    expect(JSON.stringify(bad.body)).toContain("commit");
    expect(bad.status).toBe(422);
    expect((await call("PUT /api/v1/runs/{id}/provenance", `/api/v1/runs/${missingId}/provenance`, { body: {} })).status).toBe(404);
    const filtered = await call("GET /api/v1/runs", "/api/v1/runs?branch=contract-branch&commit=0123ABCD&label=suite%3Dcontracts");
    expect((filtered.body as Array<{ id: string }>).map((r) => r.id)).toEqual([runId]);
    expect((await call("GET /api/v1/runs", "/api/v1/runs?commit=0123")).status).toBe(422);

    // Pages of the lists (the plain array without ?cursor=/?limit=), and a cursor that is not one refused naming it.
    const firstPage = await call("GET /api/v1/runs", "/api/v1/runs?limit=1");
    expect((firstPage.body as { items: unknown[] }).items).toHaveLength(1);
    const badCursor = await call("GET /api/v1/runs", "/api/v1/runs?cursor=nope");
    expect(badCursor.status).toBe(422);
    expect(JSON.stringify(badCursor.body)).toContain("cursor");
    expect((await call("GET /api/v1/studies", "/api/v1/studies?limit=1")).status).toBe(200);
    expect((await call("GET /api/v1/targets", "/api/v1/targets?limit=1")).status).toBe(200);
    expect((await call("GET /api/v1/workloads", "/api/v1/workloads?limit=0")).status).toBe(422);

    // The run's target x workload is a series; its points; a key of neither form refused, an unknown one 404.
    const seriesList = await call("GET /api/v1/series", "/api/v1/series");
    expect((seriesList.body as { items: Array<{ key: string }> }).items.map((i) => i.key)).toContain("contract-target~contract-load");
    const points = await call("GET /api/v1/series/{key}/points", "/api/v1/series/contract-target~contract-load/points?metric=p99");
    expect((points.body as { points: Array<{ id: string }> }).points.map((p) => p.id)).toContain(runId);
    expect((await call("GET /api/v1/series/{key}/points", "/api/v1/series/a~b~c/points")).status).toBe(422);
    expect((await call("GET /api/v1/series/{key}/points", "/api/v1/series/contract-target/points?metric=p42")).status).toBe(422);
    expect((await call("GET /api/v1/series/{key}/points", "/api/v1/series/no-such-series/points")).status).toBe(404);

    // The run as its target and workload's baseline; files a script's handleSummary() wrote (stored as the worker does).
    const baseline = await call("POST /api/v1/runs/{id}/baseline", `/api/v1/runs/${runId}/baseline`, { body: {} });
    expect(baseline.body).toMatchObject({ runId, target: "contract-target", workload: "contract-load" });
    expect((await call("POST /api/v1/runs/{id}/baseline", `/api/v1/runs/${missingId}/baseline`, { body: {} })).status).toBe(404);
    const baselines = await call("GET /api/v1/baselines", "/api/v1/baselines?target=contract-target&workload=contract-load");
    expect(baselines.body).toMatchObject([{ runId }]);
    // The last N runs of the baseline's series (--baseline-runs): the one marked run of the pair, and the bounds of N.
    const series = await call("GET /api/v1/runs/{id}/baseline", `/api/v1/runs/${runId}/baseline?runs=3`);
    expect(series.body).toEqual({
      runIds: [runId],
      series: "the runs marked as target contract-target x workload contract-load's baseline",
    });
    expect((await call("GET /api/v1/runs/{id}/baseline", `/api/v1/runs/${runId}/baseline?runs=1`)).status).toBe(422);
    expect((await call("GET /api/v1/runs/{id}/baseline", `/api/v1/runs/${missingId}/baseline?runs=3`)).status).toBe(404);
    await stack.db.runArtifact.create({ data: { runId, name: "reports/summary.json", size: 2, content: Buffer.from("{}") } });
    await call("GET /api/v1/runs/{id}/artifacts", `/api/v1/runs/${runId}/artifacts`);
    const artifact = await call("GET /api/v1/runs/{id}/artifacts/{name}", `/api/v1/runs/${runId}/artifacts/reports%2Fsummary.json`);
    expect(artifact.status).toBe(200);
    expect((await call("GET /api/v1/runs/{id}/artifacts/{name}", `/api/v1/runs/${runId}/artifacts/nope.json`)).status).toBe(404);

    // A run fed from elsewhere: its own ingest token, k6 output lines. Its own workload, so contract-load is unused
    // by the time it is deleted below.
    expect((await call("POST /api/v1/workloads", "/api/v1/workloads", { body: shortRamp("contract-external-load") })).status).toBe(201);
    const externalCreated = await call("POST /api/v1/runs/external", "/api/v1/runs/external", {
      body: { name: "contract-external", workload: "contract-external-load", generators: 2 },
    });
    expect(externalCreated.status).toBe(201);
    expect((externalCreated.body as { k6Commands: string[] }).k6Commands).toHaveLength(2);
    expect((externalCreated.body as { stockK6Commands: string[] }).stockK6Commands).toHaveLength(2);
    expect((externalCreated.body as { kubernetesJob: string }).kubernetesJob).toContain("completionMode: Indexed");
    expect((await call("POST /api/v1/runs/external", "/api/v1/runs/external", { body: { workload: "no-such-workload" } })).status).toBe(
      422,
    );
    const external = { id: field(externalCreated.body, "id"), token: field(externalCreated.body, "token") };
    // The first of its two generators (k6's execution segment 0:1/2).
    const lines = {
      headers: { authorization: `Bearer ${external.token}`, "content-type": "application/x-ndjson", "x-opsbench-segment": "0:1/2" },
      body: '{"t":"meta","version":4,"alpha":0.008,"minValueMs":0.001}\n',
    };
    await call("POST /api/v1/runs/{id}/ingest", `/api/v1/runs/${external.id}/ingest`, { raw: lines });
    expect((await call("POST /api/v1/runs/{id}/ingest", `/api/v1/runs/${runId}/ingest`, { raw: lines })).status).toBe(401);
    // A run without a saved target and workload cannot be a baseline.
    expect((await call("POST /api/v1/runs/{id}/baseline", `/api/v1/runs/${external.id}/baseline`, { body: {} })).status).toBe(422);
    expect(
      (await call("POST /api/v1/runs/{id}/ingest", `/api/v1/runs/${external.id}/ingest`, { raw: { ...lines, body: "nope\n" } })).status,
    ).toBe(422);

    // Comparisons and their export.
    const selection = `g=${encodeURIComponent(`one:${runId}`)}`;
    await call("GET /api/v1/comparisons", `/api/v1/comparisons?${selection}`);
    await call("GET /api/v1/comparisons", `/api/v1/comparisons?${selection}&margin=2.5`);
    expect((await call("GET /api/v1/comparisons", `/api/v1/comparisons?${selection}&margin=-1`)).status).toBe(422);
    expect((await call("GET /api/v1/comparisons", "/api/v1/comparisons")).status).toBe(422);
    await call("POST /api/v1/comparisons", "/api/v1/comparisons", { body: { groups: [{ label: "one", runIds: [runId] }] } });
    expect((await call("POST /api/v1/comparisons", "/api/v1/comparisons", { body: { groups: [] } })).status).toBe(422);
    await call("GET /api/v1/comparisons/export", `/api/v1/comparisons/export?format=csv&table=summary&${selection}`);
    await call("GET /api/v1/comparisons/export", `/api/v1/comparisons/export?format=json&table=runs&${selection}`);
    expect((await call("GET /api/v1/comparisons/export", `/api/v1/comparisons/export?table=nope&${selection}`)).status).toBe(422);

    // Share links: made, listed, seen in public, revoked.
    const share = await call("POST /api/v1/shares", "/api/v1/shares", { body: { kind: "run", subject: { runId }, title: "contract" } });
    expect(share.status).toBe(201);
    expect((await call("POST /api/v1/shares", "/api/v1/shares", { body: { kind: "run", subject: { runId: missingId } } })).status).toBe(
      422,
    );
    await call("GET /api/v1/shares", "/api/v1/shares");
    const token = field(share.body, "token");
    await call("GET /api/v1/public/shares/{token}", `/api/v1/public/shares/${token}`);
    await call("DELETE /api/v1/shares/{id}", `/api/v1/shares/${field(share.body, "id")}`);
    expect((await call("DELETE /api/v1/shares/{id}", `/api/v1/shares/${field(share.body, "id")}`)).status).toBe(404);
    expect((await call("GET /api/v1/public/shares/{token}", `/api/v1/public/shares/${token}`)).status).toBe(404);

    // A study, aborted before it runs.
    const study = await call("POST /api/v1/studies", "/api/v1/studies", {
      body: { name: "contract-study", targets: ["contract-target"], workloads: ["contract-load"], repetitions: 2, cooldownSeconds: 0 },
    });
    expect(study.status).toBe(201);
    const studyId = field(study.body, "id");
    const abort = await call("POST /api/v1/studies/{id}/abort", `/api/v1/studies/${studyId}/abort`);
    expect(abort.body).toMatchObject({ id: studyId, aborted: true });
    expect(
      (await call("POST /api/v1/studies", "/api/v1/studies", { body: { name: "x", targets: ["nope"], workloads: ["nope"] } })).status,
    ).toBe(422);
    await call("GET /api/v1/studies", "/api/v1/studies");
    await call("GET /api/v1/studies/{id}", `/api/v1/studies/${studyId}`);
    await call("GET /api/v1/studies/plan", "/api/v1/studies/plan?repetitions=6&margin=5&effect=10&cv=8&targets=a,b&workloads=w");
    expect((await call("GET /api/v1/studies/plan", "/api/v1/studies/plan?repetitions=1")).status).toBe(422);
    await call("GET /api/v1/studies/{id}/events", `/api/v1/studies/${studyId}/events`);
    await call("GET /api/v1/studies/{id}/tables", `/api/v1/studies/${studyId}/tables?table=request-counts`);
    await call("GET /api/v1/studies/{id}/tables", `/api/v1/studies/${studyId}/tables?table=cost&format=json&request=none`);
    expect((await call("GET /api/v1/studies/{id}/tables", `/api/v1/studies/${studyId}/tables?table=nope`)).status).toBe(422);
    expect((await call("GET /api/v1/studies/{id}/tables", `/api/v1/studies/${missingId}/tables?table=cost`)).status).toBe(404);
    expect((await call("GET /api/v1/studies/{id}", `/api/v1/studies/${missingId}`)).status).toBe(404);
    expect((await call("GET /api/v1/studies/{id}/events", `/api/v1/studies/${missingId}/events`)).status).toBe(404);
    expect((await call("POST /api/v1/studies/{id}/abort", `/api/v1/studies/${missingId}/abort`)).status).toBe(404);

    // Schedules (docs/schedules.md): a run's and a study's, on patterns that do not tick during the test (1 January).
    const schedule = await call("POST /api/v1/schedules", "/api/v1/schedules", {
      body: { name: "contract-nightly", what: { kind: "run", target: "contract-target", workload: "contract-load" }, cron: "0 3 1 1 *" },
    });
    expect(schedule.status).toBe(201);
    expect(schedule.body).toMatchObject({ timeZone: "UTC", paused: false, recentTicks: [] });
    expect((schedule.body as { nextTicks: string[] }).nextTicks).toHaveLength(5);
    const scheduleId = field(schedule.body, "id");
    const studySchedule = await call("POST /api/v1/schedules", "/api/v1/schedules", {
      body: { name: "contract-weekly", what: { kind: "study", studyId }, cron: "30 4 1 1 *", timeZone: "Europe/Berlin", paused: true },
    });
    expect(studySchedule.body).toMatchObject({
      what: { kind: "study", studyId, studyName: "contract-study" },
      paused: true,
      nextTicks: [],
    });
    expect(
      (
        await call("POST /api/v1/schedules", "/api/v1/schedules", {
          body: { name: "x", what: { kind: "study", studyId }, cron: "61 * * * *" },
        })
      ).status,
    ).toBe(422);
    const taken = await call("POST /api/v1/schedules", "/api/v1/schedules", {
      body: { name: "contract-nightly", what: { kind: "study", studyId }, cron: "0 3 1 1 *" },
    });
    expect(taken.status).toBe(409);
    await call("GET /api/v1/schedules", "/api/v1/schedules");
    await call("GET /api/v1/schedules/{id}", `/api/v1/schedules/${scheduleId}`);
    expect((await call("GET /api/v1/schedules/{id}", `/api/v1/schedules/${missingId}`)).status).toBe(404);
    const changed = await call("PUT /api/v1/schedules/{id}", `/api/v1/schedules/${scheduleId}`, {
      body: { name: "contract-nightly", what: { kind: "run", target: "contract-target", workload: "contract-load" }, cron: "15 3 1 1 *" },
    });
    expect(changed.body).toMatchObject({ cron: "15 3 1 1 *" });
    expect((await call("PUT /api/v1/schedules/{id}", `/api/v1/schedules/${scheduleId}`, { body: { name: "x" } })).status).toBe(422);
    expect((await call("POST /api/v1/schedules/{id}/pause", `/api/v1/schedules/${scheduleId}/pause`)).body).toMatchObject({ paused: true });
    expect((await call("POST /api/v1/schedules/{id}/resume", `/api/v1/schedules/${scheduleId}/resume`)).body).toMatchObject({
      paused: false,
    });
    expect((await call("POST /api/v1/schedules/{id}/pause", `/api/v1/schedules/${missingId}/pause`)).status).toBe(404);
    expect((await call("POST /api/v1/schedules/{id}/resume", `/api/v1/schedules/${missingId}/resume`)).status).toBe(404);
    for (const id of [scheduleId, field(studySchedule.body, "id")])
      expect((await call("DELETE /api/v1/schedules/{id}", `/api/v1/schedules/${id}`)).body).toEqual({ id, deleted: true });
    expect((await call("DELETE /api/v1/schedules/{id}", `/api/v1/schedules/${scheduleId}`)).status).toBe(404);

    // The workspace's limits, its audit log, and the OpenAPI document.
    const limits = await call("GET /api/v1/limits", "/api/v1/limits");
    expect((await call("PUT /api/v1/limits", "/api/v1/limits", { body: limits.body })).status).toBe(200);
    expect((await call("PUT /api/v1/limits", "/api/v1/limits", { body: { maxVUs: 0 } })).status).toBe(422);
    // The instance's ceilings (sign-in is off here: the caller is the instance admin); a limit above one is refused.
    const ceilings = await call("GET /api/v1/instance/ceilings", "/api/v1/instance/ceilings");
    expect((await call("PUT /api/v1/instance/ceilings", "/api/v1/instance/ceilings", { body: ceilings.body })).status).toBe(200);
    expect((await call("PUT /api/v1/instance/ceilings", "/api/v1/instance/ceilings", { body: { maxVUs: 0 } })).status).toBe(422);
    const aboveCeiling = { maxVUs: (ceilings.body as { maxVUs: number }).maxVUs + 1 };
    expect((await call("PUT /api/v1/limits", "/api/v1/limits", { body: aboveCeiling })).status).toBe(422);
    const log = await call("GET /api/v1/audit", "/api/v1/audit?limit=50");
    expect(JSON.stringify(log.body)).toContain("study.abort");
    expect((await call("GET /api/v1/audit", "/api/v1/audit?limit=0")).status).toBe(422);
    await call("GET /api/v1/openapi.json", "/api/v1/openapi.json");

    // Deleting: the study (with its runs), then a target runs still use is refused, then the run, the target and the workload.
    const deletedStudy = await call("DELETE /api/v1/studies/{id}", `/api/v1/studies/${studyId}`);
    expect(deletedStudy.body).toMatchObject({ id: studyId, deleted: true, runs: 2 });
    expect((await call("DELETE /api/v1/studies/{id}", `/api/v1/studies/${studyId}`)).status).toBe(404);
    const inUse = await call("DELETE /api/v1/targets/{id}", "/api/v1/targets/contract-target");
    expect(inUse.status).toBe(409);
    expect(JSON.stringify(inUse.body)).toContain("is used by 1 run(s)");
    expect((await call("DELETE /api/v1/runs/{id}", `/api/v1/runs/${runId}`)).body).toMatchObject({ id: runId, deleted: true });
    expect((await call("DELETE /api/v1/runs/{id}", `/api/v1/runs/${runId}`)).status).toBe(404);
    expect((await call("DELETE /api/v1/targets/{id}", "/api/v1/targets/contract-target")).body).toMatchObject({ name: "contract-target" });
    expect((await call("DELETE /api/v1/workloads/{id}", "/api/v1/workloads/contract-load")).status).toBe(200);
    expect((await call("DELETE /api/v1/workloads/{id}", "/api/v1/workloads/contract-load")).status).toBe(404);
    expect((await call("PUT /api/v1/retention", "/api/v1/retention", { body: { seriesRetentionDays: 30 } })).body).toEqual({
      seriesRetentionDays: 30,
    });
    expect((await call("GET /api/v1/retention", "/api/v1/retention")).body).toEqual({ seriesRetentionDays: 30 });
    expect((await call("PUT /api/v1/retention", "/api/v1/retention", { body: { seriesRetentionDays: 0 } })).status).toBe(422);

    // Credentials: checked by the worker against a stand-in Kubernetes API; the secret is never answered back.
    const kube = await startFakeKubeApi();
    try {
      const secret = { kind: "kubernetes", kubeconfig: kube.kubeconfig() };
      const saved = await call("POST /api/v1/credentials", "/api/v1/credentials", { body: { name: "contract-kube", secret } });
      expect(saved.status).toBe(201);
      kube.deny.add("list nodes");
      const refusedCredential = await call("POST /api/v1/credentials", "/api/v1/credentials", { body: { name: "narrow", secret } });
      expect(refusedCredential.status).toBe(422);
      expect((refusedCredential.body as { error: { message: string } }).error.message).toBe(
        `credential "narrow" (kubernetes) was refused: the kubeconfig's user may not list nodes on the cluster at ${kube.url}`,
      );
      const listed = await call("GET /api/v1/credentials", "/api/v1/credentials");
      expect((listed.body as Array<{ name: string }>).map((c) => c.name)).toEqual(["contract-kube"]);
      for (const body of [saved.body, refusedCredential.body, listed.body]) expect(JSON.stringify(body)).not.toContain(kube.token);
      expect((saved.body as { editorsMayDeploy: boolean }).editorsMayDeploy).toBe(false);
      const opened = await call("PUT /api/v1/credentials/{id}", `/api/v1/credentials/${field(saved.body, "id")}`, {
        body: { editorsMayDeploy: true },
      });
      expect((opened.body as { editorsMayDeploy: boolean }).editorsMayDeploy).toBe(true);
      expect(
        (await call("PUT /api/v1/credentials/{id}", `/api/v1/credentials/${missingId}`, { body: { editorsMayDeploy: true } })).status,
      ).toBe(404);
      expect((await call("PUT /api/v1/credentials/{id}", `/api/v1/credentials/${field(saved.body, "id")}`, { body: {} })).status).toBe(422);
      // The owner's permission for custom resources and cluster-scoped objects travels in the secret, strictly.
      kube.deny.delete("list nodes");
      const allowing = { ...secret, allow: { customResources: true, clusterScoped: true } };
      expect(
        (await call("POST /api/v1/credentials", "/api/v1/credentials", { body: { name: "contract-kube", secret: allowing } })).status,
      ).toBe(201);
      const unknownAllow = { ...secret, allow: { everything: true } };
      expect(
        (await call("POST /api/v1/credentials", "/api/v1/credentials", { body: { name: "contract-kube", secret: unknownAllow } })).status,
      ).toBe(422);
      // A kubernetes target with a chart goes through the core schema: taken, and a chart that is no base64 refused naming the field.
      const chart = Buffer.from([0x1f, 0x8b, 8, 0]).toString("base64");
      const helmTarget = (name: string, c: string) => ({
        name,
        kind: "kubernetes",
        spec: { credential: "contract-kube", helm: { chart: c, values: { replicas: 2 } } },
      });
      expect((await call("POST /api/v1/targets", "/api/v1/targets", { body: helmTarget("contract-chart", chart) })).status).toBe(201);
      const badChart = await call("POST /api/v1/targets", "/api/v1/targets", { body: helmTarget("contract-chart-bad", "not base64!") });
      expect(badChart.status).toBe(422);
      expect(JSON.stringify(badChart.body)).toContain("helm.chart");
      expect((await call("DELETE /api/v1/targets/{id}", "/api/v1/targets/contract-chart")).status).toBe(200);
      expect((await call("DELETE /api/v1/credentials/{id}", `/api/v1/credentials/${field(saved.body, "id")}`)).status).toBe(200);
      expect((await call("DELETE /api/v1/credentials/{id}", `/api/v1/credentials/${missingId}`)).status).toBe(404);

      // Script secrets (issue 37): saved, listed by name only, deleted; a workload renamed and back.
      const scriptSecret = await call("POST /api/v1/secrets", "/api/v1/secrets", {
        body: { name: "CONTRACT_TOKEN", value: "contract-value" },
      });
      expect(scriptSecret.status).toBe(201);
      expect((await call("POST /api/v1/secrets", "/api/v1/secrets", { body: { name: "OPSBENCH_X", value: "v" } })).status).toBe(422);
      const secrets = await call("GET /api/v1/secrets", "/api/v1/secrets");
      expect(JSON.stringify(secrets.body)).toContain("CONTRACT_TOKEN");
      expect(JSON.stringify([scriptSecret.body, secrets.body])).not.toContain("contract-value");
      expect((await call("DELETE /api/v1/secrets/{id}", `/api/v1/secrets/${field(scriptSecret.body, "id")}`)).status).toBe(200);
      expect((await call("DELETE /api/v1/secrets/{id}", "/api/v1/secrets/CONTRACT_TOKEN")).status).toBe(404);
      const renaming = shortRamp("contract-rename", { vus: 1, holdSeconds: 1 });
      expect((await call("POST /api/v1/workloads", "/api/v1/workloads", { body: renaming })).status).toBe(201);
      const renamed = await call("PUT /api/v1/workloads/{id}", "/api/v1/workloads/contract-rename", {
        body: { name: "contract-rename-2" },
      });
      expect(renamed.body).toEqual({ id: expect.any(String), from: "contract-rename", name: "contract-rename-2" });
      expect(
        (await call("PUT /api/v1/workloads/{id}", "/api/v1/workloads/contract-rename-2", { body: { name: "Not A Name" } })).status,
      ).toBe(422);
      expect(
        (await call("PUT /api/v1/workloads/{id}", "/api/v1/workloads/contract-rename-2", { body: { name: "contract-rename" } })).status,
      ).toBe(200);
    } finally {
      await kube.close();
    }

    // Notifications: endpoints (the secret answered once), a test send, the delivery log, SMTP settings, a tripped gate.
    const hook = await call("POST /api/v1/webhooks", "/api/v1/webhooks", {
      body: { url: "https://hooks.example.com/contract", events: ["run.failed", "gate.tripped"], format: "slack" },
    });
    expect(hook.status).toBe(201);
    const hookId = field(hook.body, "id");
    expect(field(hook.body, "secret")).toMatch(/^whsec_/);
    expect(
      (await call("POST /api/v1/webhooks", "/api/v1/webhooks", { body: { url: "http://10.0.0.5/x", events: ["run.failed"] } })).status,
    ).toBe(422);
    expect(JSON.stringify((await call("GET /api/v1/webhooks", "/api/v1/webhooks")).body)).not.toContain(field(hook.body, "secret"));
    expect((await call("PUT /api/v1/webhooks/{id}", `/api/v1/webhooks/${hookId}`, { body: { enabled: false } })).body).toMatchObject({
      enabled: false,
    });
    expect((await call("PUT /api/v1/webhooks/{id}", `/api/v1/webhooks/${missingId}`, { body: {} })).status).toBe(404);
    expect((await call("POST /api/v1/webhooks/{id}/test", `/api/v1/webhooks/${hookId}/test`)).status).toBe(201);
    expect((await call("POST /api/v1/webhooks/{id}/test", `/api/v1/webhooks/${missingId}/test`)).status).toBe(404);
    const hookLog = await call("GET /api/v1/webhooks/deliveries", `/api/v1/webhooks/deliveries?endpoint=${hookId}`);
    expect((hookLog.body as unknown[]).length).toBe(1);
    expect((await call("GET /api/v1/webhooks/deliveries", "/api/v1/webhooks/deliveries?limit=0")).status).toBe(422);
    const smtp = {
      host: "smtp.example.com",
      port: 587,
      from: "opsbench@example.com",
      to: ["oncall@example.com"],
      username: "u",
      password: "p",
      events: ["run.failed"],
    };
    const smtpSaved = await call("PUT /api/v1/notifications/smtp", "/api/v1/notifications/smtp", { body: smtp });
    expect(smtpSaved.body).toMatchObject({ hasPassword: true, security: "starttls" });
    expect(JSON.stringify(smtpSaved.body)).not.toContain('"p"');
    expect((await call("GET /api/v1/notifications/smtp", "/api/v1/notifications/smtp")).body).toMatchObject({ host: "smtp.example.com" });
    expect((await call("PUT /api/v1/notifications/smtp", "/api/v1/notifications/smtp", { body: { ...smtp, to: [] } })).status).toBe(422);
    expect((await call("DELETE /api/v1/notifications/smtp", "/api/v1/notifications/smtp")).body).toEqual({ deleted: true });
    const gateRun = (name: string) =>
      stack.db.run.create({ data: { workspaceId: stack.scope.workspaceId, status: "SUCCEEDED", source: "k6-import", name } });
    const [gateBase, gateCand] = [await gateRun("contract-gate-a"), await gateRun("contract-gate-b")];
    const tripped = await call("POST /api/v1/runs/{id}/gate-tripped", `/api/v1/runs/${gateCand.id}/gate-tripped`, {
      body: { baselineRunId: gateBase.id, rules: [{ rule: "p95 > +10%", message: "p95 +20%" }] },
    });
    expect(tripped.body).toMatchObject({ deliveries: 0 }); // the only endpoint is disabled
    expect(
      (
        await call("POST /api/v1/runs/{id}/gate-tripped", `/api/v1/runs/${gateCand.id}/gate-tripped`, {
          body: { baselineRunId: gateBase.id, rules: [] },
        })
      ).status,
    ).toBe(422);
    expect((await call("DELETE /api/v1/webhooks/{id}", `/api/v1/webhooks/${hookId}`)).status).toBe(200);
    expect((await call("DELETE /api/v1/webhooks/{id}", `/api/v1/webhooks/${hookId}`)).status).toBe(404);

    // Results exporters (docs/exports.md): the credential stored sealed, never answered; the egress rule at save.
    const exporter = await call("POST /api/v1/exporters", "/api/v1/exporters", {
      body: {
        name: "contract-prom",
        kind: "prometheus-remote-write",
        url: "https://prom.example.com/api/v1/write",
        auth: "bearer",
        secret: "tok-contract",
      },
    });
    expect(exporter.status).toBe(201);
    expect(exporter.body).toMatchObject({ auth: "bearer", hasSecret: true, enabled: true });
    const exporterId = field(exporter.body, "id");
    const refusedExporter = await call("POST /api/v1/exporters", "/api/v1/exporters", {
      body: { name: "inside", kind: "otlp-http", url: "http://10.0.0.5:4318/v1/metrics" },
    });
    expect(refusedExporter.status).toBe(422);
    expect(JSON.stringify(refusedExporter.body)).toContain("results export to 10.0.0.5 port 4318 refused");
    // A bearer exporter without its token names the field.
    const noToken = await call("POST /api/v1/exporters", "/api/v1/exporters", {
      body: { name: "x", kind: "otlp-http", url: "https://otel.example.com/v1/metrics", auth: "bearer" },
    });
    expect(noToken.status).toBe(422);
    expect(JSON.stringify(noToken.body)).toContain("bearer auth needs a secret");
    expect(JSON.stringify((await call("GET /api/v1/exporters", "/api/v1/exporters")).body)).not.toContain("tok-contract");
    expect((await call("PUT /api/v1/exporters/{id}", `/api/v1/exporters/${exporterId}`, { body: { enabled: false } })).body).toMatchObject({
      enabled: false,
      hasSecret: true,
    });
    expect((await call("PUT /api/v1/exporters/{id}", `/api/v1/exporters/${missingId}`, { body: {} })).status).toBe(404);
    expect((await call("GET /api/v1/exporters/exports", `/api/v1/exporters/exports?exporter=${exporterId}`)).body).toEqual([]);
    expect((await call("GET /api/v1/exporters/exports", "/api/v1/exporters/exports?limit=0")).status).toBe(422);
    expect((await call("DELETE /api/v1/exporters/{id}", `/api/v1/exporters/${exporterId}`)).status).toBe(200);
    expect((await call("DELETE /api/v1/exporters/{id}", `/api/v1/exporters/${exporterId}`)).status).toBe(404);

    // Every route was called at least once with a success.
    const succeeded = Object.keys(API_CONTRACTS).filter((key) => [...called].some((c) => c === `${key} 200` || c === `${key} 201`));
    expect(succeeded.sort()).toEqual(Object.keys(API_CONTRACTS).sort());
  });
});
