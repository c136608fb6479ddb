import { describe, expect, it } from "vitest";
import { credentialSecretSchema, heldNodesOfSpec, kubernetesReplicas, kubernetesSpec, secretKeyBytes, targetInput } from "../src";

const base = { credential: "gke", image: "opsbench/iot:latest" };

describe("kubernetes target spec", () => {
  it("fills defaults and reads min/max replicas", () => {
    const s = kubernetesSpec.parse({ ...base, minReplicas: 2, targetCpuPercent: 50, resources: { cpuRequest: "500m" } });
    expect(s).toMatchObject({ port: 8080, env: {}, readyTimeoutMs: 300_000 });
    expect(kubernetesReplicas(s)).toEqual({ min: 2, max: 10 });
    expect(kubernetesReplicas(kubernetesSpec.parse({ ...base, replicas: 3 }))).toEqual({ min: 3, max: 3 });
  });

  it("refuses what cannot be deployed, naming the field", () => {
    const issues = (v: unknown) => kubernetesSpec.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues({ credential: "gke" })).toEqual([
      "image: give one of image (opsbench makes the objects), manifests (yours) or helm (your chart), not more",
    ]);
    expect(issues({ ...base, targetCpuPercent: 50 })).toEqual([
      "resources.cpuRequest: an HPA on CPU needs a cpuRequest (utilisation is measured against it)",
    ]);
    expect(issues({ ...base, replicas: 2, maxReplicas: 4 })).toEqual([
      "replicas: give either replicas (a fixed size) or minReplicas/maxReplicas, not both",
    ]);
    expect(issues({ ...base, resources: { cpuRequest: "half" } })).toEqual([
      "resources.cpuRequest: a Kubernetes quantity such as 500m, 1, 256Mi",
    ]);
    expect(issues({ credential: "gke", manifests: "kind: Deployment", replicas: 2 })).toEqual([
      "manifests: with manifests, replicas, HPA, resources, placement and nodes are the manifests' own",
    ]);
  });

  it("takes the knative-service flavour, and refuses what a Knative Service cannot carry, naming the field", () => {
    const issues = (v: unknown) => kubernetesSpec.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    const k = kubernetesSpec.parse({
      ...base,
      flavour: "knative-service",
      minReplicas: 1,
      maxReplicas: 5,
      knative: { containerConcurrency: 10 },
    });
    expect(k).toMatchObject({ flavour: "knative-service", knative: { containerConcurrency: 10 } });
    expect(kubernetesReplicas(k)).toEqual({ min: 1, max: 5 });
    expect(kubernetesSpec.parse(base)).not.toHaveProperty("flavour");
    expect(issues({ ...base, flavour: "fission-function" })).toEqual([
      'flavour: Invalid option: expected one of "deployment"|"knative-service"|"openfaas-function"',
    ]);
    expect(issues({ ...base, knative: { targetConcurrency: 5 } })).toEqual(['knative: knative settings go with flavour "knative-service"']);
    expect(issues({ ...base, flavour: "knative-service", knative: { containerConcurrency: -1 } })).toEqual([
      "knative.containerConcurrency: Too small: expected number to be >=0",
    ]);
    expect(issues({ ...base, flavour: "knative-service", targetCpuPercent: 50, resources: { cpuRequest: "500m" } })).toEqual([
      "targetCpuPercent: a Knative Service scales on concurrency (knative.targetConcurrency), not with an HPA on CPU: leave targetCpuPercent out",
    ]);
    expect(issues({ ...base, flavour: "knative-service", placement: { onePodPerNode: true } })).toEqual([
      "placement: pod placement is behind Knative's feature flags (kubernetes.podspec-affinity): not with a Knative Service",
    ]);
    expect(issues({ credential: "gke", manifests: "kind: Deployment", flavour: "knative-service" })).toEqual([
      "flavour: a Knative Service is made from an image: give image, not manifests",
    ]);
  });

  it("takes the openfaas-function flavour with a gateway, and refuses what an OpenFaaS Function cannot carry, naming the field", () => {
    const issues = (v: unknown) => kubernetesSpec.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    const of = { ...base, flavour: "openfaas-function" };
    expect(kubernetesSpec.parse({ ...of, openfaas: { gateway: "http://gateway.example:8080", scaleToZero: true } })).toMatchObject({
      flavour: "openfaas-function",
      openfaas: { gateway: "http://gateway.example:8080", scaleToZero: true },
    });
    expect(kubernetesSpec.parse({ ...of, portForward: true }).flavour).toBe("openfaas-function");
    expect(issues(of)).toEqual([
      "openfaas.gateway: say where the load goes: openfaas.gateway (the OpenFaaS gateway's URL), endpoint, or portForward",
    ]);
    expect(issues({ ...of, openfaas: { gateway: "http://g:8080" }, portForward: true })).toEqual([
      "openfaas.gateway: give openfaas.gateway, or endpoint/portForward, not both: each says where the load goes",
    ]);
    expect(issues({ ...base, portForward: true, openfaas: { scaleToZero: true } })).toEqual([
      'openfaas: openfaas settings go with flavour "openfaas-function"',
    ]);
    expect(issues({ ...of, portForward: true, database: { engine: "postgres" } })).toEqual([
      "database: an OpenFaaS Function reads secrets as files, not env: bring the database yourself and give its URL in env",
    ]);
    expect(issues({ ...of, portForward: true, targetCpuPercent: 50, resources: { cpuRequest: "500m" } })).toEqual([
      "targetCpuPercent: OpenFaaS scales a function itself (its autoscaler, on requests per second): leave targetCpuPercent out",
    ]);
    expect(issues({ ...of, openfaas: { gateway: "not a url" } })).toEqual(["openfaas.gateway: Invalid URL"]);
  });

  it("takes nodes (the pods held to that many nodes), refused with a flavour, manifests or a nodeSelector of the user's", () => {
    const issues = (v: unknown) => kubernetesSpec.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(kubernetesSpec.parse({ ...base, nodes: 3, replicas: 6 })).toMatchObject({ nodes: 3, replicas: 6 });
    expect(heldNodesOfSpec(kubernetesSpec.parse({ ...base, nodes: 3 }))).toBe(3);
    expect(heldNodesOfSpec(kubernetesSpec.parse(base))).toBeNull();
    expect(issues({ ...base, nodes: 0 })).toEqual(["nodes: Too small: expected number to be >=1"]);
    expect(issues({ ...base, nodes: 2, placement: { nodeSelector: { pool: "a" } } })).toEqual([
      "nodes: give nodes (opsbench holds that many nodes for the run) or placement.nodeSelector (yours), not both",
    ]);
    expect(issues({ ...base, nodes: 2, flavour: "knative-service" })).toEqual([
      "nodes: pod placement is behind Knative's feature flags (kubernetes.podspec-affinity): not with a Knative Service",
    ]);
  });

  it("takes a packaged chart as base64 instead of image or manifests, with values and a release name", () => {
    const chart = Buffer.from("not really a tgz").toString("base64");
    const s = kubernetesSpec.parse({ credential: "gke", helm: { chart, values: { replicas: 2 }, release: "shop" }, deployment: "web" });
    expect(s.helm).toEqual({ chart, values: { replicas: 2 }, release: "shop" });
    const issues = (v: unknown) => kubernetesSpec.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues({ ...base, helm: { chart } })).toEqual([
      "image: give one of image (opsbench makes the objects), manifests (yours) or helm (your chart), not more",
    ]);
    expect(issues({ credential: "gke", helm: { chart: "a b\n" } })).toEqual([
      "helm.chart: the packaged chart (.tgz) as base64 (A-Z, a-z, 0-9, '+', '/', '=' padding; no line breaks)",
    ]);
    expect(issues({ credential: "gke", helm: { chart: "A".repeat(1_398_108) } })).toEqual([
      "helm.chart: the packaged chart is larger than 1 MiB (base64: at most 1,398,104 characters)",
    ]);
    expect(issues({ credential: "gke", helm: { chart, repo: "https://charts.example" } })).toEqual(['helm: Unrecognized key: "repo"']);
    expect(issues({ credential: "gke", helm: { chart }, replicas: 2 })).toEqual([
      "helm: with helm, replicas, HPA, resources, placement and nodes are the chart's own (set them in helm.values)",
    ]);
    expect(issues({ credential: "gke", helm: { chart }, flavour: "deployment" })).toEqual([
      "helm: a chart brings its own objects: database, flavour, knative and openfaas go with image",
    ]);
  });

  it("is a target kind the API accepts, as is endpoint", () => {
    expect(targetInput.parse({ name: "k", kind: "kubernetes", spec: base }).kind).toBe("kubernetes");
    expect(targetInput.parse({ name: "e", kind: "endpoint", spec: { url: "http://127.0.0.1:8080" } }).kind).toBe("endpoint");
  });
});

describe("credentials", () => {
  it("takes 32-byte keys as hex or base64 only", () => {
    expect(secretKeyBytes("ab".repeat(32))?.length).toBe(32);
    expect(secretKeyBytes(Buffer.alloc(32, 7).toString("base64"))?.[0]).toBe(7);
    expect(secretKeyBytes("short")).toBeNull();
    expect(secretKeyBytes(Buffer.alloc(16).toString("base64"))).toBeNull();
  });

  it("names what a secret lacks, by kind", () => {
    const r = credentialSecretSchema.safeParse({ kind: "aws", accessKeyId: "AKIA", secretAccessKey: "x", region: "moon" });
    expect(r.error?.issues.map((i) => i.path.join("."))).toEqual(["region"]);
    const g = credentialSecretSchema.safeParse({ kind: "gcp", serviceAccountKey: "{}", projectId: "my-project", region: "europe-west1" });
    expect(g.error?.issues[0]?.message).toMatch(/service account's JSON key/);
  });

  it("a kubernetes credential carries the owner's permission for custom resources and cluster-scoped objects, strictly", () => {
    const k = { kind: "kubernetes", kubeconfig: "apiVersion: v1" };
    expect(credentialSecretSchema.parse({ ...k, allow: { customResources: true, clusterScoped: false } })).toEqual({
      ...k,
      allow: { customResources: true, clusterScoped: false },
    });
    expect(credentialSecretSchema.parse(k)).toEqual(k);
    const r = credentialSecretSchema.safeParse({ ...k, allow: { clusterWide: true } });
    expect(r.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual(['allow: Unrecognized key: "clusterWide"']);
  });
});
