// The knative-service flavour's object and its readiness, read from the conditions Knative's controllers set
// (the flavour against the real controller: tests/knative-study.test.ts).
import { kubernetesSpec } from "@opsbench/core";
import { describe, expect, it } from "vitest";
import { knativeNotReady, knativeServiceObject, type KnativeService, revisionDeployment } from "../src/kubernetes/knative";

const spec = (extra: Record<string, unknown> = {}) =>
  kubernetesSpec.parse({ credential: "c", image: "opsbench/app:1", flavour: "knative-service", env: { MODE: "fast" }, ...extra });

describe("knative-service flavour", () => {
  it("makes a serving.knative.dev/v1 Service in the run's namespace: image, env, concurrency, min/max/initial scale from the replicas", () => {
    const s = spec({
      minReplicas: 2,
      maxReplicas: 6,
      resources: { cpuRequest: "250m" },
      knative: { containerConcurrency: 8, targetConcurrency: 4, targetBurstCapacity: 0 },
    });
    const o = knativeServiceObject({ ...s, image: "opsbench/app:1" }, "run1");
    expect(o).toMatchObject({
      apiVersion: "serving.knative.dev/v1",
      kind: "Service",
      metadata: { name: "app", namespace: "opsbench-run1", labels: { "opsbench-run": "run1" } },
      spec: {
        template: {
          metadata: {
            labels: { "opsbench-run": "run1" },
            annotations: {
              "autoscaling.knative.dev/class": "kpa.autoscaling.knative.dev",
              "autoscaling.knative.dev/min-scale": "2",
              "autoscaling.knative.dev/max-scale": "6",
              "autoscaling.knative.dev/initial-scale": "2",
              "autoscaling.knative.dev/target": "4",
              "autoscaling.knative.dev/target-burst-capacity": "0",
            },
          },
          spec: {
            containerConcurrency: 8,
            timeoutSeconds: 300,
            containers: [
              {
                name: "app",
                image: "opsbench/app:1",
                ports: [{ containerPort: 8080 }],
                env: [{ name: "MODE", value: "fast" }],
                resources: { requests: { cpu: "250m" } },
              },
            ],
          },
        },
      },
    });
    // PORT is Knative's to set (a reserved name); a pinned size is min = max.
    const pinned = knativeServiceObject({ ...spec({ replicas: 5 }), image: "x" }, "r");
    const template = pinned.spec.template as {
      metadata: { annotations: Record<string, string> };
      spec: { containers: { env: { name: string }[] }[] };
    };
    expect(template.metadata.annotations).toEqual({
      "autoscaling.knative.dev/class": "kpa.autoscaling.knative.dev",
      "autoscaling.knative.dev/min-scale": "5",
      "autoscaling.knative.dev/max-scale": "5",
      "autoscaling.knative.dev/initial-scale": "5",
    });
    expect(template.spec.containers[0]?.env.map((e) => e.name)).not.toContain("PORT");
    // The database's URL from its Secret, never written into the Service.
    const withDb = knativeServiceObject({ ...spec({ database: { engine: "postgres" } }), image: "x" }, "r");
    expect(JSON.stringify(withDb)).toContain('"valueFrom":{"secretKeyRef":{"name":"db","key":"url"}}');
  });

  it("is ready from the Service's conditions: ConfigurationsReady for an endpoint of the user's, Ready (Route too) for its own URL", () => {
    const svc = (conditions: Array<Record<string, string>>, status: Record<string, unknown> = {}): KnativeService => ({
      apiVersion: "serving.knative.dev/v1",
      kind: "Service",
      metadata: { name: "app", generation: 1 },
      spec: {},
      status: { observedGeneration: 1, conditions: conditions as never, ...status },
    });
    expect(knativeNotReady({ ...svc([]), status: {} }, false)).toEqual({ waiting: "Knative's controller has not seen the Service yet" });
    expect(knativeNotReady(svc([{ type: "ConfigurationsReady", status: "Unknown", reason: "RevisionMissing" }]), false)).toEqual({
      waiting: "ConfigurationsReady=Unknown (RevisionMissing); latest created revision none",
    });
    const configured = svc(
      [
        { type: "ConfigurationsReady", status: "True" },
        { type: "RoutesReady", status: "Unknown", reason: "IngressNotConfigured" },
        { type: "Ready", status: "Unknown", reason: "IngressNotConfigured" },
      ],
      { latestReadyRevisionName: "app-00001", latestCreatedRevisionName: "app-00001" },
    );
    expect(knativeNotReady(configured, false)).toEqual({ revision: "app-00001", url: null });
    expect(knativeNotReady(configured, true)).toMatchObject({
      waiting: expect.stringMatching(/^Ready=Unknown \(IngressNotConfigured\), RoutesReady=Unknown/),
    });
    expect(() =>
      knativeNotReady(svc([{ type: "ConfigurationsReady", status: "False", reason: "RevisionFailed", message: "image pull" }]), false),
    ).toThrow("the Knative Service's Configuration failed: ConfigurationsReady=False (RevisionFailed: image pull)");
    expect(revisionDeployment("app-00001")).toBe("app-00001-deployment");
  });
});
