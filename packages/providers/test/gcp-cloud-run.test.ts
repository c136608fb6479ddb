// gcp-cloud-run against the fake Cloud Run Admin v2 + Cloud Monitoring v3 (tests/fakes/gcp-apis.ts)
// with the real @google-cloud/run and @google-cloud/monitoring clients: the service as created,
// Monitoring series read back at 60 s, teardown by label, and a wrong key refused before anything exists.
import { readFileSync } from "node:fs";
import path from "node:path";
import { targetInput } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putCloudRunSeries, serviceAccountKey, startGcpFake, type GcpFake } from "../../../tests/fakes/gcp-apis";
import { gcpCloudRun, type InfraPoint, type ProviderContext } from "../src";
import { testContext } from "./provider-context";

const PROJECT = "opsbench-test";
let fake: GcpFake;
let key: ReturnType<typeof serviceAccountKey>;
beforeAll(async () => {
  fake = await startGcpFake();
  key = serviceAccountKey(PROJECT);
  fake.trust(key.email, key.publicKeyPem);
});
afterAll(() => fake?.stop());

const credential = (json = key.json) => ({ kind: "gcp" as const, serviceAccountKey: json, projectId: PROJECT, region: "europe-west1" });

function gcpContext(secret = credential()) {
  const t = testContext();
  const logs: string[] = [];
  const ctx: ProviderContext = {
    ...t.ctx,
    runId: crypto.randomUUID(),
    credential: secret,
    endpoints: { gcp: fake.url },
    log: (msg, data) => void logs.push(`${msg} ${JSON.stringify(data ?? {})}`),
  };
  return { ...t, ctx, logs };
}

describe("gcp-cloud-run against the fake", () => {
  it("creates the service as specified, reads Monitoring back at 60 s, deletes it by label", async () => {
    const { ctx, logs } = gcpContext();
    const spec = gcpCloudRun.spec.parse({
      credential: "test-gcp",
      region: "europe-west1",
      image: "europe-docker.pkg.dev/opsbench/benchapps/echo-node:1",
      concurrency: 100,
      minInstances: 1,
      maxInstances: 20,
      cpu: "1",
      memoryMb: 256,
      cpuThrottling: true,
      endpointUrl: "http://127.0.0.1:9",
      metrics: { settleSeconds: 0, waitSeconds: 5, pollSeconds: 1 },
    });
    const dep = await gcpCloudRun.deploy(spec, ctx);
    const stored = fake.services.get(dep.state.serviceName!)!;
    expect(stored).toMatchObject({
      labels: { "opsbench-run": ctx.runId },
      template: {
        scaling: { minInstanceCount: 1, maxInstanceCount: 20 },
        maxInstanceRequestConcurrency: 100,
        containers: [
          { image: spec.image, ports: [{ containerPort: 8080 }], resources: { limits: { cpu: "1", memory: "256Mi" }, cpuIdle: true } },
        ],
      },
    });
    expect(dep.state.uri).toMatch(/^https:\/\/.+\.a\.run\.app$/);
    await gcpCloudRun.reset(dep, ctx);

    // observe's window opens in the minute it starts in: a minute ending between putting the series and that start
    // would leave them outside it (seen once on a busy machine), so the last 20 s of a minute are waited out, to a
    // second past its end: a timer may fire a millisecond before the clock reads the new minute.
    const msLeftInMinute = 60_000 - (Date.now() % 60_000);
    if (msLeftInMinute < 20_000) await new Promise((resolve) => setTimeout(resolve, msLeftInMinute + 1_000));
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const short = dep.state.serviceName!.split("/").at(-1)!;
    await putCloudRunSeries(fake.url, credential(), short, minute, [
      { type: "run.googleapis.com/request_count", labels: { response_code_class: "2xx" }, value: { int64Value: 5000 } },
      { type: "run.googleapis.com/request_count", labels: { response_code_class: "5xx" }, value: { int64Value: 12 } },
      { type: "run.googleapis.com/request_latencies", value: { distributionValue: { count: 5012, mean: 18.5 } } },
      { type: "run.googleapis.com/container/instance_count", labels: { state: "active" }, value: { int64Value: 3 } },
      { type: "run.googleapis.com/container/instance_count", labels: { state: "idle" }, value: { int64Value: 1 } },
      { type: "run.googleapis.com/container/billable_instance_time", value: { doubleValue: 171.5 } },
      { type: "run.googleapis.com/container/cpu/utilizations", value: { distributionValue: { count: 4, mean: 0.42 } } },
    ]);
    const window = new AbortController();
    setTimeout(() => window.abort(), 300);
    const points: InfraPoint[] = [];
    for await (const p of gcpCloudRun.observe(dep, { signal: window.signal }, ctx)) points.push(p);
    expect(points, logs.join("\n")).toHaveLength(1);
    // Stamped at the middle of the minute it measured.
    expect(points[0]!.ts.getTime()).toBe(minute.getTime() + 30_000);
    expect(points[0]!.replicas).toBe(4);
    expect(points[0]!.cpuPercent).toBeCloseTo(42, 6);
    expect(points[0]!.detail).toMatchObject({
      kind: "gcp-cloud-run",
      resolutionSeconds: 60,
      platform: { requests: 5012, requests2xx: 5000, requests5xx: 12, latencyMsMean: 18.5, billableInstanceSeconds: 171.5 },
      totals: { billedMs: 171_500, requests: 5012 },
    });

    await gcpCloudRun.teardown({ state: { credential: "test-gcp", project: PROJECT, region: "europe-west1" } }, ctx);
    expect([...fake.services.keys()]).not.toContain(dep.state.serviceName);
  });

  it("the IoT study's Cloud Run preset: env and Secret Manager references reach services.create; secret values are never stored", async () => {
    const preset = targetInput.parse(
      JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../../infra/targets/cloud-run-1vcpu.json"), "utf8")),
    );
    if (preset.kind !== "gcp-cloud-run") throw new Error(preset.kind);
    const { ctx } = gcpContext();
    const spec = gcpCloudRun.spec.parse({
      ...preset.spec,
      credential: "test-gcp",
      region: "europe-west1",
      env: { ...preset.spec.env, IOT_SCRYPT_COST: "1024" },
      secrets: { ...preset.spec.secrets, IOT_JWT_SECRET: { secret: `projects/${PROJECT}/secrets/iot-jwt`, version: "3" } },
    });
    const dep = await gcpCloudRun.deploy(spec, ctx);
    try {
      const stored = fake.services.get(dep.state.serviceName!) as {
        template: { containers: unknown[]; maxInstanceRequestConcurrency: number };
      };
      expect(stored.template.containers[0]).toMatchObject({
        image: "opsbench/iot:latest",
        resources: { limits: { cpu: "1", memory: "256Mi" }, cpuIdle: true },
        env: [
          { name: "IOT_SEED", value: "1" },
          { name: "IOT_SCRYPT_COST", value: "1024" },
          { name: "IOT_DATABASE_URL", valueSource: { secretKeyRef: { secret: "iot-database-url", version: "latest" } } },
          { name: "IOT_JWT_SECRET", valueSource: { secretKeyRef: { secret: `projects/${PROJECT}/secrets/iot-jwt`, version: "3" } } },
        ],
      });
      expect(stored.template.maxInstanceRequestConcurrency).toBe(100);
    } finally {
      await gcpCloudRun.teardown(dep, ctx);
    }
    const bad = gcpCloudRun.spec.safeParse({ ...spec, secrets: { LD_PRELOAD: { secret: "x" }, IOT_SEED: { secret: "y" } } });
    expect(bad.success ? [] : bad.error.issues.map((i) => `${i.path.join(".")}: ${i.message.slice(0, 40)}`)).toEqual([
      "secrets.LD_PRELOAD: LD_PRELOAD is refused: it lets a runtime",
      "secrets.IOT_SEED: IOT_SEED is in env too: give it in one o",
    ]);
    expect(gcpCloudRun.spec.safeParse({ ...spec, secrets: { A: { secret: "a/b" } } }).success).toBe(false);
  });

  it("refuses a key the platform does not know before creating anything, naming the credential", async () => {
    const stranger = serviceAccountKey(PROJECT, "stranger@opsbench-test.iam.gserviceaccount.com");
    const { ctx, states } = gcpContext(credential(stranger.json));
    const spec = gcpCloudRun.spec.parse({ credential: "prod-gcp", region: "europe-west1", image: "gcr.io/x/y" });
    const creates = fake.calls.get("services.create") ?? 0;
    const err = await gcpCloudRun.deploy(spec, ctx).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/Google Cloud credential "prod-gcp" is refused by Cloud Run \(services.list in opsbench-test\)/);
    expect(err?.message).not.toContain("PRIVATE KEY");
    expect(states).toEqual([]);
    expect(fake.calls.get("services.create") ?? 0).toBe(creates);
    await expect(gcpCloudRun.deploy(spec, { ...ctx, credential: credential("{not json") })).rejects.toThrow(
      /"prod-gcp" is not a service-account key file/,
    );
  });
});
