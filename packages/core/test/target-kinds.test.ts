import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineKind, registerTargetKind, TARGET_KINDS, targetInput, targetKinds, targetSpecs, targetVariants } from "../src";

const lateKind = defineKind({
  kind: "late",
  spec: z.strictObject({}),
  credential: null,
  place: "local",
  vcpuPerReplica: () => null,
  pin: { replicas: () => "no", nodes: () => "no" },
  cost: { billedTime: "none" },
  observes: [],
  words: { label: "late", description: "registered too late" },
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
