// The spec's nodes (a study's nodes factor on a kubernetes target) against a real control plane with four kwok
// nodes: a run holds that many free nodes and its pods are scheduled only there; a run asking for more than are free
// is refused naming each node's state, and holds none; teardown, and the reaper after a crash, release the nodes.
import { kubernetesSpec, parseLoadHostAllowlist } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type ControlPlane, startControlPlane } from "../../../tests/control-plane/control-plane";
import { kubernetes, type KubernetesState, type ReaperContext } from "../src";
import { testContext } from "./provider-context";

let cp: ControlPlane;
const loadHosts = parseLoadHostAllowlist(process.env.OPSBENCH_LOAD_ALLOWED_HOSTS ?? "");
const admin = (method: string, p: string) => api(cp.server, cp.adminToken, method, p);

beforeAll(async () => {
  cp = await startControlPlane({ nodes: 4 });
}, 3_600_000);
afterAll(() => cp?.stop());

const contextFor = (runId: string) => {
  const t = testContext();
  t.ctx.runId = runId;
  // Labelling nodes is a cluster-scoped change: the credential's owner allowed those.
  t.ctx.credential = { kind: "kubernetes", kubeconfig: cp.adminKubeconfig, allow: { clusterScoped: true } };
  t.ctx.loadHosts = loadHosts;
  return t;
};
const spec = (nodes: number, replicas: number) =>
  kubernetesSpec.parse({
    credential: "c",
    image: "opsbench/echo-go:latest",
    replicas,
    nodes,
    endpoint: "http://127.0.0.1:9",
    readyTimeoutMs: 60_000,
  });

/** Node name -> the run holding it (undefined when free). */
async function holders(): Promise<Record<string, string | undefined>> {
  const list = (await admin("GET", "/api/v1/nodes")) as { items: { metadata: { name: string; labels?: Record<string, string> } }[] };
  return Object.fromEntries(list.items.map((n) => [n.metadata.name, n.metadata.labels?.["opsbench-run"]]));
}

describe("kubernetes nodes held per run (a real control plane, four kwok nodes)", () => {
  it("holds the nodes, schedules the pods only there, refuses a run asking for more than are free, releases at teardown", async () => {
    const a = "a0de0000-0000-4000-8000-00000000000a";
    const b = "a0de0000-0000-4000-8000-00000000000b";
    // Without the owner's permission for cluster-scoped objects: refused before anything is made, no node held.
    const unallowed = contextFor(a);
    unallowed.ctx.credential = { kind: "kubernetes", kubeconfig: cp.adminKubeconfig };
    await expect(kubernetes.deploy(spec(2, 4), unallowed.ctx)).rejects.toThrow(
      "nodes: holding 2 node(s) labels cluster-scoped Node objects: the credential does not allow cluster-scoped objects (allow.clusterScoped, set by a workspace owner; docs/credentials.md)",
    );
    expect(unallowed.states).toEqual([]);
    expect(Object.values(await holders())).toEqual([undefined, undefined, undefined, undefined]);
    const ctxA = contextFor(a);
    const dep = await kubernetes.deploy(spec(2, 4), ctxA.ctx);
    try {
      expect(ctxA.states.at(-1)).toMatchObject({ nodes: 2 });
      const held = Object.entries(await holders())
        .filter(([, run]) => run === a)
        .map(([name]) => name);
      expect(held).toEqual(["kwok-node-0", "kwok-node-1"]);
      expect(ctxA.events.map((e) => e.message)).toContain("holding 2 node(s) for the run's pods: kwok-node-0, kwok-node-1");
      const pods = (await admin("GET", `/api/v1/namespaces/opsbench-${a}/pods`)) as { items: { spec: { nodeName?: string } }[] };
      expect(pods.items.length).toBe(4);
      for (const p of pods.items) expect(held).toContain(p.spec.nodeName);

      // Observed: the nodes the run holds, not the cluster's four.
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 2500);
      const points = [];
      for await (const p of kubernetes.observe(dep, { signal: controller.signal, intervalMs: 500 }, ctxA.ctx)) points.push(p);
      expect(points.at(-1)).toMatchObject({ replicas: 4, detail: { nodes: 2 } });

      // One of the other two is tainted by its owner: a run asking for two is refused, naming each node's state, and
      // holds none.
      const node3 = (await admin("GET", "/api/v1/nodes/kwok-node-3")) as { spec: { taints?: unknown[] } };
      await api(cp.server, cp.adminToken, "PUT", "/api/v1/nodes/kwok-node-3", {
        ...node3,
        spec: { ...node3.spec, taints: [...(node3.spec.taints ?? []), { key: "dedicated", value: "gpu", effect: "NoSchedule" }] },
      });
      const ctxB = contextFor(b);
      await expect(kubernetes.deploy(spec(2, 2), ctxB.ctx)).rejects.toThrow(
        `the spec asks for 2 nodes; 1 of the cluster's 4 are free (kwok-node-0: held by run ${a}; kwok-node-1: held by run ${a}; kwok-node-2: free; kwok-node-3: tainted dedicated=gpu:NoSchedule)`,
      );
      await kubernetes.teardown({ endpoint: "", state: { runId: b } as KubernetesState }, ctxB.ctx);
      expect(Object.values(await holders()).filter((r) => r === b)).toEqual([]);
    } finally {
      await kubernetes.teardown(dep, ctxA.ctx);
    }
    expect(Object.values(await holders())).toEqual([undefined, undefined, undefined, undefined]);
  }, 300_000);

  it("after a crash (no teardown), the reaper finds the run by its nodes' label and releases them", async () => {
    const c = "a0de0000-0000-4000-8000-00000000000c";
    const ctxC = contextFor(c);
    await kubernetes.deploy(spec(1, 1), ctxC.ctx);
    // The worker "crashed": no teardown. Its namespace goes (as if deleted by hand), its node stays held.
    await admin("DELETE", `/api/v1/namespaces/opsbench-${c}`);
    expect(Object.values(await holders())).toContain(c);
    const reaper = kubernetes.reaper!;
    const reaperCtx: ReaperContext = { credential: ctxC.ctx.credential!, loadHosts, log: () => {} };
    expect(await reaper.listRuns(reaperCtx)).toContain(c);
    await reaper.deleteRun(c, reaperCtx);
    expect(Object.values(await holders())).toEqual([undefined, undefined, undefined, undefined]);
    expect(await reaper.listRuns(reaperCtx)).not.toContain(c);
  }, 300_000);
});
