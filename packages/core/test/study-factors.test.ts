import { describe, expect, it } from "vitest";
import { factorLevels, studyInput, studyRunCount, targetVariants, localServiceSpec } from "../src";

const issues = (fn: () => unknown) => {
  try {
    fn();
    return [];
  } catch (e) {
    return (e as { issues: Array<{ path: PropertyKey[]; message: string }> }).issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  }
};

describe("study factors", () => {
  it("expands levels replicas outer, nodes inner, and counts the runs with them", () => {
    expect(factorLevels(undefined)).toEqual([{}]);
    expect(factorLevels({ replicas: [1, 5], nodes: [2, 3] })).toEqual([
      { replicas: 1, nodes: 2 },
      { replicas: 1, nodes: 3 },
      { replicas: 5, nodes: 2 },
      { replicas: 5, nodes: 3 },
    ]);
    const s = studyInput.parse({ name: "s", targets: ["a", "b"], workloads: ["w"], repetitions: 3, factors: { replicas: [1, 5, 25, 50] } });
    expect(studyRunCount(s)).toBe(2 * 4 * 1 * 3);
    const big = studyInput.safeParse({
      name: "s",
      targets: ["a", "b"],
      workloads: ["w", "x"],
      repetitions: 40,
      factors: { replicas: [1, 5, 25, 50] },
    });
    expect(big.success ? "" : big.error.issues[0]!.message).toBe(
      "640 runs (targets x factor levels x workloads x repetitions); at most 500",
    );
    expect(studyInput.safeParse({ name: "s", targets: ["a"], workloads: ["w"], factors: { replicas: [5, 5] } }).success).toBe(false);
  });

  it("pins each kind's count where it can", () => {
    const path = ["targets", 0];
    const pinned = (kind: string, spec: unknown, f = { replicas: [5] }) => targetVariants({ name: "t", kind, spec }, f, path)[0]!.input;
    expect(pinned("local-service", { app: "echo/go", minReplicas: 1, maxReplicas: 4, autoscaler: { targetCpuPercent: 50 } })).toMatchObject(
      {
        name: "t.r5",
        spec: { replicas: 5, autoscaler: { targetCpuPercent: 50 } },
      },
    );
    expect(pinned("local-function", { app: "echo/go" }).spec).toMatchObject({ minInstances: 5, maxInstances: 5 });
    const k8s = pinned("kubernetes", {
      credential: "kube",
      image: "img:1",
      minReplicas: 1,
      maxReplicas: 40,
      targetCpuPercent: 50,
      resources: { cpuRequest: "500m" },
    });
    expect(k8s.spec).toMatchObject({ replicas: 5, targetCpuPercent: 50 });
    expect(k8s.spec).not.toHaveProperty("maxReplicas");
    expect(pinned("gcp-cloud-run", { credential: "gcp1", region: "europe-west3", image: "img:1" }).spec).toMatchObject({
      minInstances: 5,
      maxInstances: 5,
    });
    const asg = { credential: "aws1", region: "us-east-1", minSize: 1, maxSize: 3 };
    expect(pinned("aws-asg", asg).spec).toMatchObject({ minSize: 5, maxSize: 5 });
    expect(pinned("aws-asg", asg, { nodes: [2] } as never)).toMatchObject({ name: "t.n2", spec: { minSize: 2, maxSize: 2 } });
    // A kubernetes target's pods held to that many of the cluster's nodes (study 002's 3 or 6 nodes), with replicas too.
    expect(
      targetVariants(
        { name: "eks", kind: "kubernetes", spec: { credential: "kube", image: "img:1" } },
        { replicas: [6], nodes: [3, 6] },
        [],
      ).map((v) => [
        v.input.name,
        (v.input.spec as { replicas?: number; nodes?: number }).replicas,
        (v.input.spec as { nodes?: number }).nodes,
      ]),
    ).toEqual([
      ["eks.r6.n3", 6, 3],
      ["eks.r6.n6", 6, 6],
    ]);
    // The local engine allows 64 replicas (it was 32).
    expect(localServiceSpec.safeParse({ app: "echo/go", replicas: 64 }).success).toBe(true);
    expect(localServiceSpec.safeParse({ app: "echo/go", replicas: 65 }).success).toBe(false);
  });

  it("refuses what cannot be pinned, naming the target and the reason", () => {
    const path = ["targets", 1];
    expect(issues(() => targetVariants({ name: "fn", kind: "aws-lambda", spec: {} }, { replicas: [1] }, path))).toEqual([
      "targets.1: fn: a Lambda function has no replicas to pin: its instances follow the load (reservedConcurrency caps them)",
    ]);
    expect(
      issues(() =>
        targetVariants({ name: "k", kind: "kubernetes", spec: { credential: "kube", manifests: "x" } }, { replicas: [1] }, path),
      )[0],
    ).toMatch(/^targets\.1: k: its manifests bring their own replicas/);
    expect(
      issues(() => targetVariants({ name: "k", kind: "kubernetes", spec: { credential: "kube", manifests: "x" } }, { nodes: [3] }, path)),
    ).toEqual(["targets.1.spec.manifests: k: at n3: with manifests, replicas, HPA, resources, placement and nodes are the manifests' own"]);
    expect(
      issues(() =>
        targetVariants(
          { name: "g", kind: "aws-asg", spec: { credential: "aws1", region: "us-east-1" } },
          { replicas: [2], nodes: [2] },
          path,
        ),
      ),
    ).toEqual(["targets.1: g: an Auto Scaling group's instances are its nodes: give replicas or nodes, not both"]);
    expect(
      issues(() => targetVariants({ name: "big", kind: "local-service", spec: { app: "echo/go" } }, { replicas: [8, 65] }, path)),
    ).toEqual(["targets.1.spec.replicas: big: at r65: Too big: expected number to be <=64"]);
    const long = "x".repeat(62);
    expect(
      issues(() => targetVariants({ name: long, kind: "local-service", spec: { app: "echo/go" } }, { replicas: [10] }, path))[0],
    ).toMatch(/^targets\.1\.name: x+: at r10: Too big/);
  });
});
