// Runs of the kubernetes kind through the worker against a real control plane (tests/control-plane/): deploy ->
// reset -> load -> observe -> teardown ends SUCCEEDED with the platform's series and events on the timeline; a
// failure after deploy and a kubeconfig the cluster refuses leave no namespace; no secret reaches the run's
// rows. The load goes to a local stand-in of the image (the benchapp on loopback), given as the endpoint.
import { spawn } from "node:child_process";
import path from "node:path";
import { readInfraPointDetail, type TargetInput } from "@opsbench/core";
import { createRunQueue, queueWorkers, startRun } from "@opsbench/jobs";
import { kubeClientOf } from "@opsbench/providers";
import { parseLoadHostAllowlist } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type ControlPlane, startControlPlane } from "../../../tests/control-plane/control-plane";
import { type MetricsApi, startMetricsApi } from "../../../tests/control-plane/metrics-api";
import { createLogger } from "../src/logger";
import { reapOnce } from "../src/reaper";
import { openTestStack, shortRamp, testDatabaseUrl, testRedisUrl, testSecretKey, waitForFinal } from "../../../tests/helpers";
import { fileRunnerEnv, useRunner } from "../../../tests/file-services";
import { type StandIn, startStandIn } from "../../../tests/control-plane/stand-in";
import { freePort } from "../../../tests/ports";
import { nodeProgram } from "../../cli/src/processes";

/** The control plane listens on loopback: allowed as the test stack's workers allow it (tests/file-services.ts). */
const testLoadHosts = () => parseLoadHostAllowlist(process.env.OPSBENCH_LOAD_ALLOWED_HOSTS ?? "");

let stack: Awaited<ReturnType<typeof openTestStack>>;
let cp: ControlPlane;
let metrics: MetricsApi;
let standIn: StandIn;
let standInUrl: string;

beforeAll(async () => {
  const port = await freePort();
  // Every pod's port-forward reaches the stand-in (kwok plays the kubelets).
  [stack, cp] = await Promise.all([openTestStack(), startControlPlane({ portForwardTo: port })]);
  // Serves no pod CPU until a test asks for it: the HPA then holds its replicas.
  metrics = await startMetricsApi(cp);
  standIn = await startStandIn(port);
  standInUrl = standIn.url;
}, 3_600_000);
afterAll(async () => {
  standIn?.stop();
  await metrics?.stop();
  await cp?.stop();
  await stack?.close();
});

/** Saves a kubeconfig as a workspace credential (sealed as the web app does; the check-on-save is credential-check.test.ts's). */
async function saveKubeconfig(name: string, kubeconfig: string) {
  const secret = { kind: "kubernetes" as const, kubeconfig };
  await stack.scope.credentials.save({
    name,
    kind: "kubernetes",
    sealed: stack.scope.credentials.seal(name, secret, testSecretKey()),
    checkedAt: new Date(),
  });
}

const target = (name: string, credential: string, extra: Record<string, unknown> = {}): TargetInput => ({
  name,
  kind: "kubernetes",
  spec: {
    credential,
    image: "opsbench/cpu-loop-node-http:latest",
    port: 8080,
    minReplicas: 2,
    maxReplicas: 4,
    targetCpuPercent: 50,
    resources: { cpuRequest: "500m", cpuLimit: "1" },
    env: {},
    endpoint: standInUrl,
    readyTimeoutMs: 90_000,
    ...extra,
  },
});

/** `saturate`: no pause between a VU's requests, for a test that needs the stand-in's CPU to rise. */
async function run(t: TargetInput, holdSeconds = 6, vus = 3, { saturate = false } = {}) {
  await stack.scope.targets.put(t);
  await stack.scope.workloads.put(shortRamp(`${t.name}-load`, { vus, holdSeconds, ...(saturate ? { thinkTime: null } : {}) }));
  const r = await startRun(stack.scope, stack.queue, { targetName: t.name, workloadName: `${t.name}-load` });
  return { runId: r.id, view: await waitForFinal(stack.db, r.id, 400_000) };
}

const namespacesOf = async (runId: string) => {
  const client = await kubeClientOf({ kind: "kubernetes", kubeconfig: cp.adminKubeconfig }, { loadHosts: testLoadHosts() });
  const list = await client.core.listNamespace({ labelSelector: `opsbench-run=${runId}` });
  return list.items.map((n) => n.metadata?.name);
};

const tokenOf = (kubeconfig: string) => /token: (\S+)/.exec(kubeconfig)?.[1] ?? "none";

describe("kubernetes runs through the worker", () => {
  it("deploy -> reset -> load -> observe -> teardown: SUCCEEDED, replicas/HPA/nodes series and the cluster's events on the timeline, no namespace left", async () => {
    await saveKubeconfig("cluster", cp.adminKubeconfig);
    const { runId, view } = await run(target("k8s-hpa", "cluster"));
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    console.log(`[direct] ${view.summary!.requests} requests, p50 ${view.summary!.latencyMs.p50} ms`);
    const points = (await stack.db.infraPoint.findMany({ where: { runId }, orderBy: { ts: "asc" } })).map((p) => ({
      ...p,
      detail: readInfraPointDetail(p.detail),
    }));
    expect(points.length).toBeGreaterThan(2);
    for (const p of points) {
      expect(p.detail).toMatchObject({ kind: "kubernetes", ready: 2, nodes: 3, restarts: 0, hpaTargetCpuPercent: 50 });
      expect(p.replicas).toBe(2);
    }
    const events = await stack.db.runEvent.findMany({ where: { runId }, orderBy: { ts: "asc" } });
    const messages = events.map((e) => e.message);
    expect(messages.some((m) => m.startsWith(`namespace opsbench-${runId} created`))).toBe(true);
    expect(messages.some((m) => /^kubernetes: Deployment app: ScalingReplicaSet Scaled up replica set app-\w+ from 0 to 2/.test(m))).toBe(
      true,
    );
    expect(
      messages.some((m) =>
        /^kubernetes: Pod app-[\w-]+: Scheduled Successfully assigned opsbench-[\w-]+\/app-[\w-]+ to kwok-node-\d/.test(m),
      ),
    ).toBe(true);
    expect(await namespacesOf(runId)).toEqual([]);
    // Nothing the run stored holds the kubeconfig's token.
    const row = await stack.db.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: true, events: true } });
    expect(JSON.stringify(row, (_, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(tokenOf(cp.adminKubeconfig));
  });

  it("the HPA scales on the stand-in's CPU: desired and ready replicas rise from 1 under load (to 4 when the CPU shown asks for it), each rise after utilisation above target", async () => {
    metrics.measure(standIn.pid ?? null);
    try {
      // 100m requested a pod at a 50% target: the stand-in's CPU under load (a fraction of a core) asks for more than 4.
      // Priced as billed: the ready pods packed 2 to a t3.medium (no per-node minimum, no scale-down delay, to keep the sum simple).
      const costModel = {
        catalog: "aws-eks-t3-medium-us-east-1",
        version: "2026-11-nodes",
        podsPerNode: 2,
        scaleDownDelaySeconds: 0,
        minimumSecondsPerNode: 0,
      };
      const t = target("k8s-scales", "cluster", {
        minReplicas: 1,
        maxReplicas: 4,
        resources: { cpuRequest: "100m", cpuLimit: "1" },
        costModel,
      });
      const { runId, view } = await run(t, 25, 6, { saturate: true });
      expect(view.error).toBeNull();
      expect(view.status).toBe("SUCCEEDED");
      const points = (await stack.db.infraPoint.findMany({ where: { runId }, orderBy: { ts: "asc" } })).map((p) => ({
        replicas: p.replicas,
        detail: readInfraPointDetail(p.detail),
      }));
      const detail = points.map((p) => p.detail);
      console.log(`[hpa] ready/desired/cpu%: ${detail.map((d) => `${d.ready}/${d.desired}/${d.hpaCurrentCpuPercent}`).join(" ")}`);
      expect(points[0]?.replicas).toBe(1);
      // Judged against the CPU the HPA was shown, not against how much CPU this machine could give the stand-in (on a
      // busy machine it reaches fewer pods): it scaled out, every rise of the desired count came after a reading above
      // the target (50% plus the HPA's 10% tolerance), the ready pods followed the desired count, and the maximum holds.
      const peakDesired = Math.max(...detail.map((d) => d.desired ?? 0));
      const peak = Math.max(...points.map((p) => p.replicas ?? 0));
      expect(peakDesired).toBeGreaterThanOrEqual(2);
      expect(peakDesired).toBeLessThanOrEqual(4);
      expect(peak).toBe(peakDesired);
      for (let i = 1; i < detail.length; i++)
        if ((detail[i]!.desired ?? 0) > (detail[i - 1]!.desired ?? 0))
          expect(Math.max(...detail.slice(0, i + 1).map((d) => d.hpaCurrentCpuPercent ?? 0)), `the rise at point ${i}`).toBeGreaterThan(55);
      // With the CPU shown at least four times the target, the HPA asks for the maximum.
      if (Math.max(...detail.map((d) => d.hpaCurrentCpuPercent ?? 0)) >= 4 * 50 * 1.1) expect(peakDesired).toBe(4);
      const events = await stack.db.runEvent.findMany({ where: { runId }, orderBy: { ts: "asc" } });
      expect(
        events.some((e) =>
          /^kubernetes: HorizontalPodAutoscaler app: SuccessfulRescale New size: \d; reason: cpu resource utilization \(percentage of request\) above target/.test(
            e.message,
          ),
        ),
      ).toBe(true);
      expect(await namespacesOf(runId)).toEqual([]);
      // The node staircase, summed here from the stored points: each holds from its offset until the next (the first
      // from the load's start), ceil(pods / 2) nodes, over the priced span.
      const row = await stack.db.run.findUniqueOrThrow({ where: { id: runId } });
      const cost = view.summary!.cost!;
      const span = cost.pricedSpan!.seconds;
      const stored = await stack.db.infraPoint.findMany({ where: { runId }, orderBy: { ts: "asc" } });
      const steps = stored.map((p) => ({ at: (p.ts.getTime() - row.loadStartedAt!.getTime()) / 1000, pods: p.replicas }));
      let nodeSeconds = 0;
      let podSeconds = 0;
      for (let i = 0; i < steps.length; i++) {
        const from = i === 0 ? 0 : Math.min(span, Math.max(0, steps[i]!.at));
        const until = i + 1 < steps.length ? Math.min(span, Math.max(0, steps[i + 1]!.at)) : span;
        if (until <= from) continue;
        nodeSeconds += Math.ceil(steps[i]!.pods / 2) * (until - from);
        podSeconds += steps[i]!.pods * (until - from);
      }
      // The worker prices from k6's first sample, this sum from the run's loadStartedAt: they differ by k6's start-up,
      // which moves the one node change by under a second or so (each node-second moved is one second of 1 node vs 2).
      expect(Math.abs(cost.lines.find((l) => l.key === "nodes")!.billed - nodeSeconds)).toBeLessThan(1.5);
      expect(cost.notes.join(" ")).toContain(
        `priced by nodes: 2 pods per t3.medium, at least 1 node(s); most nodes ${Math.ceil(peak / 2)}`,
      );
      // Fewer node-seconds than pod-seconds (the old per-pod-as-node price): two pods share a node.
      expect(nodeSeconds).toBeLessThan(podSeconds);
    } finally {
      metrics.measure(null);
    }
  });

  it("without a load balancer: port-forwards through the API server carry the load; SUCCEEDED, flagged, the listener closed at teardown", async () => {
    const t = target("k8s-forwarded", "cluster", { endpoint: undefined, portForward: true });
    const { runId, view } = await run(t);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.summary!.requests).toBeGreaterThan(20);
    expect(view.summary!.failures).toBe(0);
    console.log(`[port-forward] ${view.summary!.requests} requests, p50 ${view.summary!.latencyMs.p50} ms`);
    expect(view.flags.map((f) => f.code)).toContain("port-forward");
    const provision = await stack.db.runStep.findFirstOrThrow({ where: { runId, name: "PROVISION" } });
    const endpoint = (provision.detail as { endpoint?: string }).endpoint ?? "";
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(endpoint).not.toBe(standInUrl);
    const events = await stack.db.runEvent.findMany({ where: { runId } });
    expect(events.some((e) => e.message.startsWith(`port-forward: the load goes to ${endpoint}`))).toBe(true);
    // Torn down: nothing listens there any more, and the namespace is gone.
    await expect(fetch(`${endpoint}/healthz`)).rejects.toThrow();
    expect(await namespacesOf(runId)).toEqual([]);
  });

  it("endpoint linked to a namespace of the user's: SUCCEEDED with its Deployment's series, the namespace left as it was", async () => {
    const ns = "shop";
    await api(cp.server, cp.adminToken, "POST", "/api/v1/namespaces", { metadata: { name: ns } });
    await api(cp.server, cp.adminToken, "POST", `/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name: "web" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "shop:1" }] } },
      },
    });
    const t: TargetInput = {
      name: "linked-ns",
      kind: "endpoint",
      spec: { url: standInUrl, linked: { credential: "cluster", namespace: ns, deployment: "web" } },
    };
    const { runId, view } = await run(t);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    const points = (await stack.db.infraPoint.findMany({ where: { runId } })).map((p) => readInfraPointDetail(p.detail));
    expect(points.length).toBeGreaterThan(2);
    expect(points.at(-1)).toMatchObject({ kind: "kubernetes", ready: 2, nodes: 3 });
    // Not opsbench's: still there after the run.
    const left = (await api(cp.server, cp.adminToken, "GET", `/apis/apps/v1/namespaces/${ns}/deployments/web`)) as {
      metadata: { name: string };
    };
    expect(left.metadata.name).toBe("web");
  });

  it("a failure after the namespace was made (pods that cannot be scheduled) fails the run and leaves no namespace", async () => {
    const { runId, view } = await run(
      target("k8s-unschedulable", "cluster", { placement: { nodeSelector: { pool: "none-such" } }, readyTimeoutMs: 5000 }),
    );
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(/^Deployment app to be ready did not happen within 5 s: 0\/2 replicas ready, want 2/);
    const provision = await stack.db.runStep.findFirstOrThrow({ where: { runId, name: "PROVISION" } });
    expect(provision.detail).toMatchObject({ state: { namespace: `opsbench-${runId}` } });
    expect(await namespacesOf(runId)).toEqual([]);
  });

  it("a kubeconfig the cluster refuses (saved before its rights were taken) fails before anything is made, naming the credential and the verbs", async () => {
    await saveKubeconfig("nobody", cp.nobodyKubeconfig);
    const { runId, view } = await run(target("k8s-nobody", "nobody"));
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(
      new RegExp(
        `^credential "nobody" \\(kubernetes\\) was refused before deploying: the kubeconfig's user may not create namespaces, .*list nodes on the cluster at ${cp.server}`,
      ),
    );
    const provision = await stack.db.runStep.findFirstOrThrow({ where: { runId, name: "PROVISION" } });
    expect((provision.detail as { state?: unknown } | null)?.state).toBeUndefined();
    expect(await namespacesOf(runId)).toEqual([]);
    expect(JSON.stringify(view)).not.toContain(tokenOf(cp.nobodyKubeconfig));
  });

  it("a worker SIGKILLed after deploy, then started again, leaves no namespace (the run is redelivered, torn down, FAILED)", async () => {
    // A worker of this test's own, on a queue of its own, so it alone takes the run.
    const redisUrl = new URL(testRedisUrl());
    redisUrl.searchParams.set("prefix", `${redisUrl.searchParams.get("prefix")}-kill`);
    const queue = createRunQueue(redisUrl.toString());
    const startWorker = async () => {
      await useRunner();
      const child = spawn(process.execPath, nodeProgram("worker"), {
        cwd: path.resolve(import.meta.dirname, "../../.."),
        env: {
          ...process.env,
          DATABASE_URL: testDatabaseUrl(),
          REDIS_URL: redisUrl.toString(),
          OPSBENCH_SECRET_KEY: testSecretKey(),
          LOG_LEVEL: "warn",
          ...fileRunnerEnv(),
        },
        stdio: "ignore",
      });
      for (let i = 0; i < 600 && (await queueWorkers(queue)).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      return child;
    };
    try {
      const first = await startWorker();
      const t = target("k8s-killed", "cluster");
      await stack.scope.targets.put(t);
      await stack.scope.workloads.put(shortRamp("k8s-killed-load", { vus: 2, holdSeconds: 120 }));
      const r = await startRun(stack.scope, queue, { targetName: t.name, workloadName: "k8s-killed-load" });
      for (let i = 0; i < 1200; i++) {
        const row = await stack.db.run.findUniqueOrThrow({ where: { id: r.id } });
        if (row.status === "RUNNING") break;
        await new Promise((res) => setTimeout(res, 250));
      }
      expect(await namespacesOf(r.id)).toEqual([`opsbench-${r.id}`]);
      first.kill("SIGKILL");
      const second = await startWorker();
      try {
        const view = await waitForFinal(stack.db, r.id, 300_000);
        expect(view.status).toBe("FAILED");
        expect(view.error).toMatch(/^interrupted: the worker stopped while this run was in progress/);
        expect(await namespacesOf(r.id)).toEqual([]);
      } finally {
        second.kill("SIGTERM");
      }
    } finally {
      await queue.close();
    }
  });

  it("the reaper deletes namespaces of runs that are final in the credential's workspace, and leaves unknown runs' alone", async () => {
    const finished = await stack.db.run.findFirstOrThrow({ where: { status: { in: ["SUCCEEDED", "FAILED"] } } });
    const stranger = "99999999-9999-4999-8999-999999999999";
    const admin = /token: (\S+)/.exec(cp.adminKubeconfig)?.[1] ?? "";
    for (const runId of [finished.id, stranger])
      await api(cp.server, admin, "POST", "/api/v1/namespaces", {
        metadata: { name: `opsbench-${runId}`, labels: { "opsbench-run": runId } },
      });
    const result = await reapOnce({ db: stack.db, log: createLogger("silent"), secretKey: testSecretKey(), loadHosts: testLoadHosts() });
    expect(result).toEqual({ deleted: [finished.id], failed: [] });
    expect(await namespacesOf(finished.id)).toEqual([]);
    expect(await namespacesOf(stranger)).toEqual([`opsbench-${stranger}`]);
  });
});
