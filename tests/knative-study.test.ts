// Study 001's setup on Kubernetes (infra/studies/knative-vs-deployment.json): a Knative Service against a plain
// Deployment, replicas as a factor, end to end through the worker against the tests' control plane with Knative
// Serving's real controller and autoscaler running (tests/control-plane/knative.ts): every run deploys, becomes ready
// from the conditions Knative sets, is loaded (k6 to a local stand-in of the image: kwok's pods serve nothing),
// observed (the Revision's Deployment's replicas, its PodAutoscaler) and torn down; the study's comparison (the compare
// page's loader, then the page in a browser) holds both targets with results. The preset is run as a user would run
// it on a cluster, with what this machine needs changed: replicas 1 and 5 (not 25 and 50), one repetition, a shorter
// load, and the load sent to the stand-in.
import { readFileSync } from "node:fs";
import path from "node:path";
import { readInfraPointDetail, type StudyInput, studyInput } from "@opsbench/core";
import { loadStudyView } from "@opsbench/db";
import { createStudyQueue, startStudy } from "@opsbench/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCompareData } from "../apps/web/features/compare/load-compare-data";
import { api, type ControlPlane, startControlPlane } from "./control-plane/control-plane";
import { type Knative, startKnative } from "./control-plane/knative";
import { launchBrowser, openTestStack, testRedisUrl, testSecretKey, testWebUrl } from "./helpers";
import { type StandIn, startStandIn } from "./control-plane/stand-in";
import { freePort } from "./ports";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let studyQueue: ReturnType<typeof createStudyQueue>;
let cp: ControlPlane;
let knative: Knative;
let standIn: StandIn;
let standInUrl: string;

beforeAll(async () => {
  const port = await freePort();
  [stack, cp] = await Promise.all([openTestStack(), startControlPlane({ portForwardTo: port })]);
  studyQueue = createStudyQueue(testRedisUrl());
  knative = await startKnative(cp);
  standIn = await startStandIn(port);
  standInUrl = standIn.url;
}, 3_600_000);
afterAll(async () => {
  standIn?.stop();
  await knative?.stop();
  await cp?.stop();
  await studyQueue?.close();
  await stack?.close();
});

const FINAL = ["SUCCEEDED", "FAILED", "ABORTED"];

const preset = studyInput.parse(
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../infra/studies/knative-vs-deployment.json"), "utf8")),
);

/** The preset with this machine's changes (above); the targets' specs otherwise as the file has them. */
function onThisMachine(): StudyInput {
  const load = preset.workloads[0]!;
  if (typeof load === "string" || load.spec.kind !== "ramping-vus") throw new Error("the preset's workload is not an inline ramping-vus");
  return {
    ...preset,
    targets: preset.targets.map((t) => {
      if (typeof t === "string" || t.kind !== "kubernetes") throw new Error("the preset's targets are not inline kubernetes targets");
      return { ...t, spec: { ...t.spec, endpoint: standInUrl, readyTimeoutMs: 180_000 } };
    }),
    workloads: [
      {
        ...load,
        spec: {
          ...load.spec,
          stages: [
            { duration: "2s", target: 3 },
            { duration: "4s", target: 3 },
          ],
          gracefulRampDown: "2s",
        },
      },
    ],
    factors: { replicas: [1, 5] },
    repetitions: 1,
    order: "sequential",
    cooldownSeconds: 0,
  };
}

interface Obj {
  metadata: { name: string };
  status?: { conditions?: { type: string; status: string }[] };
}

describe("study 001's preset: a Knative Service and a plain Deployment, replicas 1 and 5, with Knative's controller running", () => {
  it("runs every cell end to end, observes the Revision's replicas, and compares both targets", async () => {
    await stack.scope.credentials.save({
      name: "cluster",
      kind: "kubernetes",
      sealed: stack.scope.credentials.seal("cluster", { kind: "kubernetes", kubeconfig: cp.adminKubeconfig }, testSecretKey()),
      checkedAt: new Date(),
    });
    // The preset's targetBurstCapacity 0: the activator (not run here: it proxies to pods, and kwok's pods have no
    // network) stays out of the path while pods run, as it does on a cluster whose Revision never scales to zero.
    const { study, cells } = await startStudy(stack.scope, studyQueue, onThisMachine());
    expect(cells.map((c) => c.target)).toEqual(["echo-knative.r1", "echo-knative.r5", "echo-deployment.r1", "echo-deployment.r5"]);

    // While the study runs: the objects Knative's controllers make for the Service, and their conditions.
    const seen = { configuration: false, revision: false, podAutoscaler: false, routeReady: false };
    const until = Date.now() + 900_000;
    let view = await loadStudyView(stack.db, study.id, { merged: false });
    while (!(FINAL.includes(view.status) && view.runs.every((r) => FINAL.includes(r.status)))) {
      if (Date.now() > until) throw new Error(`study still ${view.status}`);
      for (const r of view.runs.filter((r) => r.status === "RUNNING")) {
        const ns = `opsbench-${r.id}`;
        const list = (p: string) =>
          (api(cp.server, cp.adminToken, "GET", `/apis/${p}`) as Promise<{ items: Obj[] }>).then((l) => l.items).catch(() => []);
        const ready = (o: Obj) => o.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
        const [configs, revisions, pas, routes] = await Promise.all([
          list(`serving.knative.dev/v1/namespaces/${ns}/configurations`),
          list(`serving.knative.dev/v1/namespaces/${ns}/revisions`),
          list(`autoscaling.internal.knative.dev/v1alpha1/namespaces/${ns}/podautoscalers`),
          list(`serving.knative.dev/v1/namespaces/${ns}/routes`),
        ]);
        if (configs.some(ready)) seen.configuration = true;
        if (revisions.some(ready)) seen.revision = true;
        if (pas.some(ready)) seen.podAutoscaler = true;
        if (routes.some(ready)) seen.routeReady = true;
      }
      await new Promise((r) => setTimeout(r, 1000));
      view = await loadStudyView(stack.db, study.id, { merged: false });
    }
    const byTarget = new Map(view.runs.map((r) => [cells[r.cell!]!.target, r]));
    for (const [name, r] of byTarget) expect(`${name}: ${r.status} ${r.error ?? ""}`.trim()).toBe(`${name}: SUCCEEDED`);
    // Knative's controller made the Configuration and the Revision Ready, the KPA its PodAutoscaler; no ingress layer
    // here, so no Route became Ready.
    expect(seen).toEqual({ configuration: true, revision: true, podAutoscaler: true, routeReady: false });

    for (const r of view.runs) {
      const cell = cells[r.cell!]!;
      const want = cell.level!.replicas!;
      const points = (await stack.db.infraPoint.findMany({ where: { runId: r.id }, orderBy: { ts: "asc" } })).map((p) => ({
        ...p,
        detail: readInfraPointDetail(p.detail),
      }));
      expect(points.length, cell.target).toBeGreaterThan(0);
      expect(Math.max(...points.map((p) => p.replicas)), cell.target).toBe(want);
      const events = (await stack.db.runEvent.findMany({ where: { runId: r.id } })).map((e) => e.message);
      if (cell.baseTarget === "echo-knative") {
        // The Revision's Deployment, pinned by min-scale = max-scale; the KPA's desired scale beside it; no cold start.
        for (const p of points)
          expect(p.detail, cell.target).toMatchObject({
            kind: "kubernetes",
            ready: want,
            desired: want,
            revision: "app-00001",
            coldStarts: 0,
          });
        expect(events, cell.target).toContain("Knative Service app: revision app-00001 ready (Deployment app-00001-deployment)");
        expect(
          events.some((m) => /^kubernetes: Deployment app-00001-deployment: ScalingReplicaSet Scaled up/.test(m)),
          cell.target,
        ).toBe(true);
      } else {
        for (const p of points) expect(p.detail, cell.target).toMatchObject({ kind: "kubernetes", ready: want });
        expect(
          points.some((p) => "revision" in (p.detail as object)),
          cell.target,
        ).toBe(false);
      }
      // Torn down: the namespace (and Knative's objects in it) gone.
      await expect(api(cp.server, cp.adminToken, "GET", `/api/v1/namespaces/opsbench-${r.id}`)).rejects.toThrow(/404/);
    }

    // The study's comparison, as the compare page loads it: both targets, every level, with results.
    const data = await loadCompareData(stack.scope, { studyId: study.id });
    expect(data.title).toBe(preset.name);
    expect(data.groups.map((g) => g.label).sort()).toEqual([
      "echo-deployment.r1 x echo-c10",
      "echo-deployment.r5 x echo-c10",
      "echo-knative.r1 x echo-c10",
      "echo-knative.r5 x echo-c10",
    ]);
    for (const g of data.groups) {
      expect(g.runs.length, g.label).toBe(1);
      expect(g.merged?.rps ?? 0, g.label).toBeGreaterThan(0);
      expect(Math.max(...g.infra.map((p) => p.replicas)), g.label).toBe(Number(/\.r(\d+) x/.exec(g.label)![1]));
    }

    // The compare page itself, in a browser: both targets at both levels, as the team would open it.
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${testWebUrl()}/compare?study=${study.id}`);
      await page.getByTestId("cmp-view").waitFor();
      expect(await page.locator("h1").textContent()).toContain(preset.name);
      const rows = await page.locator('[data-testid="cmp-group-row"]').allTextContents();
      expect(rows.length).toBe(4);
      for (const label of data.groups.map((g) => g.label.split(" x ")[0]!))
        expect(
          rows.some((r) => r.includes(label)),
          label,
        ).toBe(true);
      await page.screenshot({ path: "/tmp/knative-study-compare.png", fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
    console.log(
      `[knative study] ${data.groups.map((g) => `${g.label}: ${g.merged?.rps?.toFixed(1)} req/s, p50 ${g.merged?.latencyMs?.p50} ms`).join("; ")}`,
    );
  }, 1_200_000);
});
