import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  credentialKindOf,
  defineKind,
  kindCost,
  observedDetail,
  platformCredentialKind,
  registerTargetKind,
  TARGET_KINDS,
  targetInput,
  targetKinds,
  targetSpecs,
  targetVariants,
} from "../src";

const lateKind = defineKind({
  kind: "late",
  spec: z.strictObject({}),
  credential: null,
  place: "local",
  vcpuPerReplica: () => null,
  pin: { replicas: () => "no", nodes: () => "no" },
  cost: { billedTime: "none" },
  observes: [],
  words: { label: "late", description: "registered too late", replicas: "replicas" },
});

describe("the target kind catalog", () => {
  it("derives the spec schemas and the API's union from TARGET_KINDS, each kind under its own name", () => {
    expect(Object.entries(TARGET_KINDS).map(([key, k]) => [key, k.kind])).toEqual(Object.keys(TARGET_KINDS).map((k) => [k, k]));
    expect(Object.keys(targetSpecs)).toEqual(Object.keys(TARGET_KINDS));
    expect(targetInput.parse({ name: "e", kind: "endpoint", spec: { url: "http://127.0.0.1:8080" } }).kind).toBe("endpoint");
    expect(targetInput.safeParse({ name: "e", kind: "nope", spec: {} }).success).toBe(false);
  });

  it("closes once read: a kind registered after the schemas were built is refused, not half-added", () => {
    targetInput.parse({ name: "e", kind: "endpoint", spec: { url: "http://127.0.0.1:8080" } });
    expect(() => registerTargetKind(lateKind)).toThrow('target kind "late" registered after the catalog was read');
    expect(targetKinds().map((k) => k.kind)).toEqual(Object.keys(TARGET_KINDS));
  });

  it("pins each kind through its own definition, with its own reason when it cannot", () => {
    const endpoint = { name: "site", kind: "endpoint", spec: { url: "http://127.0.0.1:8080" } };
    expect(() => targetVariants(endpoint, { nodes: [2] }, ["targets", 0])).toThrow(
      "site: an endpoint target is not deployed by opsbench: it has no replicas or nodes to pin",
    );
    const [variant] = targetVariants({ name: "fn", kind: "gcp-cloud-run", spec: gcpSpec }, { replicas: [3] }, []);
    expect(variant!.input.spec).toMatchObject({ minInstances: 3, maxInstances: 3 });
  });
});

const gcpSpec = { credential: "gcp-main", region: "europe-west1", image: "gcr.io/p/app:1" };

describe("the facts the run reads from a kind", () => {
  it("the credential kind a target may name: the kind's, or the one its endpoint link names", () => {
    expect(credentialKindOf("aws-lambda", { credential: "x" })).toBe("aws");
    expect(credentialKindOf("kubernetes", { credential: "x" })).toBe("kubernetes");
    expect(credentialKindOf("local-service", {})).toBeNull();
    const url = "http://127.0.0.1:8080";
    expect(credentialKindOf("endpoint", { url, linked: { credential: "c", cloudRunService: "s", region: "europe-west1" } })).toBe("gcp");
    expect(credentialKindOf("endpoint", { url, linked: { credential: "c", namespace: "n", deployment: "d" } })).toBe("kubernetes");
    expect(credentialKindOf("endpoint", { url })).toBeNull();
    expect(() => credentialKindOf("nope", {})).toThrow('no target kind "nope" in the catalog');
    // The reaper visits a platform with its kind's credentials; an endpoint's depend on its spec, so it has none.
    expect(platformCredentialKind("gcp-cloud-run")).toBe("gcp");
    expect(platformCredentialKind("endpoint")).toBeNull();
  });

  it("cost facts and observed detail by kind", () => {
    expect(kindCost("local-function").billedTime).toBe("meter");
    expect(kindCost("aws-lambda").billedTime).toBe("platform");
    expect(kindCost("kubernetes").heldNodes?.({ nodes: 3 })).toBe(3);
    expect(kindCost("local-service").podCpu?.({ resources: { cpuRequest: 0.5 } })).toBe(0.5);
    expect(kindCost("aws-asg").podCpu).toBeUndefined();
    expect(observedDetail("local-function").has("perInstanceCpu")).toBe(true);
    expect(observedDetail("local-service").has("perInstanceCpu")).toBe(false);
    expect(observedDetail("removed-kind").size).toBe(0);
  });
});
