/// <reference path="../src/snappyjs.d.ts" />
// Notifications through the worker (docs/notifications.md), against real receivers on loopback (the test's
// OPSBENCH_LOAD_ALLOWED_HOSTS lets 127.0.0.1:1024-65535 through, as an admin's host:port entry would):
// three failed runs reach a webhook as three signed deliveries whose signatures verify with the endpoint's secret;
// a receiver that answers 500 twice gets the event on the third attempt, every attempt logged; a Slack-format
// endpoint gets Slack's { "text" } body; an address the egress rule refuses is never connected to; e-mail goes
// through the workspace's SMTP server (smtp-server on loopback, with a password). Results export (docs/exports.md): a
// run imported from a k6 file whose numbers the test knows (the real `opsbench import k6`) reaches a Prometheus
// remote-write receiver and an OTLP/HTTP receiver, whose requests the test decodes as those protocols define them
// (snappy, then protobuf, with the protocols' own message definitions) and checks value by value.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { EXPORT_METRICS } from "@opsbench/core";
import protobuf from "protobufjs";
import { uncompress } from "snappyjs";
import { createExportQueue, exportRun } from "@opsbench/jobs";
import { createNotificationQueue, createScheduleQueue, type NotificationQueue, notify, notifyNewChanges, startRun } from "@opsbench/jobs";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useWorker } from "../../../tests/file-services";
import { openTestStack, shortRamp, taewaTarget, testRedisUrl, testSecretKey, waitForFinal } from "../../../tests/helpers";
import { exactQuantile, importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";
import { importSeriesRun, seriesCommit } from "../../../tests/series-runs";
import { receiver, signatureVerifies } from "../../../tests/webhook-receiver";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let queue: NotificationQueue;
const secretKey = () => testSecretKey();

beforeAll(async () => {
  // Retries 200 ms apart, then 400 ms (10 s and 20 s by default): the attempts are what is judged, not the wait.
  await useWorker({ env: { OPSBENCH_NOTIFICATION_RETRY_BASE_MS: "200", OPSBENCH_PUBLIC_URL: "https://bench.example.com" } });
  stack = await openTestStack();
  queue = createNotificationQueue(testRedisUrl());
});
afterAll(async () => {
  await queue?.close();
  await stack?.close();
});

const deliveriesOf = (endpoint: string) => stack.scope.notifications.deliveries({ endpoint, limit: 50 });

async function settled(endpoint: string, count: number) {
  await expect
    .poll(async () => (await deliveriesOf(endpoint)).filter((d) => d.status !== "pending").length, { timeout: 60_000, interval: 200 })
    .toBe(count);
  return deliveriesOf(endpoint);
}

describe("webhooks", () => {
  it("signs three deliveries of three failed runs, and each signature verifies with the endpoint's secret", async () => {
    const hook = await receiver();
    const { maxVUs } = await stack.scope.limits.get();
    try {
      const endpoint = await stack.scope.notifications.createWebhook(
        { url: hook.url, events: ["run.failed"], format: "json", enabled: true, createdBy: "test" },
        secretKey(),
      );
      expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      // A workload over the workspace's VU limit fails each run before anything is deployed (the worker's limits check).
      await stack.scope.targets.put(taewaTarget("notify-taewa", { replicas: 1 }));
      await stack.scope.workloads.put(shortRamp("notify-five-vus", { vus: 5, holdSeconds: 1 }));
      await stack.scope.limits.set({ maxVUs: 2 });
      const runIds: string[] = [];
      for (let i = 0; i < 3; i++) {
        const run = await startRun(stack.scope, stack.queue, { targetName: "notify-taewa", workloadName: "notify-five-vus" });
        expect((await waitForFinal(stack.db, run.id)).status).toBe("FAILED");
        runIds.push(run.id);
      }
      const log = await settled(endpoint.id, 3);
      expect(log.map((d) => d.status)).toEqual(["delivered", "delivered", "delivered"]);
      expect(hook.got).toHaveLength(3);
      for (const r of hook.got) {
        expect(signatureVerifies(r, endpoint.secret)).toBe(true);
        // A signature made with another secret, or over another body, does not.
        expect(signatureVerifies(r, `${endpoint.secret}x`)).toBe(false);
        expect(signatureVerifies({ ...r, body: r.body.replace("run.failed", "run.FAILED") }, endpoint.secret)).toBe(false);
        expect(Math.abs(Number(r.headers["x-opsbench-timestamp"]) - Date.now() / 1000)).toBeLessThan(600);
        expect(r.headers["content-type"]).toBe("application/json");
      }
      const bodies = hook.got.map((r) => JSON.parse(r.body));
      expect(bodies.map((b) => b.runId).sort()).toEqual([...runIds].sort());
      for (const b of bodies) {
        expect(b.event).toBe("run.failed");
        expect(b.workspace.id).toBe(stack.scope.workspaceId);
        expect(b.url).toBe(`https://bench.example.com/runs/${b.runId}`);
        expect(b.text).toMatch(/^Run [0-9a-f]{8} \(notify-taewa x notify-five-vus\) failed: /);
        expect(b.detail.error).toContain("VU");
      }
      // The secret is sealed at rest: the row does not hold it in the clear.
      const row = await stack.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      expect(row.secret).not.toContain(endpoint.secret);
      expect(row.secret).toMatch(/^v1\./);
    } finally {
      await stack.scope.limits.set({ maxVUs });
      await hook.close();
    }
  });

  it("retries a receiver that answers 500 twice, and records every attempt", async () => {
    const hook = await receiver([500, 500, 200]);
    try {
      const endpoint = await stack.scope.notifications.createWebhook(
        { url: hook.url, events: ["change.detected"], format: "json", enabled: true, createdBy: "test" },
        secretKey(),
      );
      const sent = await notify(stack.db, queue, {
        workspaceId: stack.scope.workspaceId,
        event: "change.detected",
        text: "p95 of shop x ramp rose 18% since 3 Nov",
        path: "/compare",
      });
      expect(sent.deliveryIds).toHaveLength(1);
      const [delivery] = await settled(endpoint.id, 1);
      expect(delivery).toMatchObject({ status: "delivered", attempts: 3, lastResponseCode: 200, lastError: null });
      expect(delivery!.attemptLog.map((a) => [a.ok, a.code])).toEqual([
        [false, 500],
        [false, 500],
        [true, 200],
      ]);
      expect(delivery!.attemptLog[0]!.error).toBe("the receiver answered 500: receiver says no");
      // Each attempt is signed afresh; every one verifies.
      expect(hook.got).toHaveLength(3);
      expect(hook.got.every((r) => signatureVerifies(r, endpoint.secret))).toBe(true);
      expect(new Set(hook.got.map((r) => JSON.parse(r.body).id)).size).toBe(1);
    } finally {
      await hook.close();
    }
  });

  it("gives up after five attempts on a receiver that always fails", async () => {
    const hook = await receiver([503]);
    try {
      const endpoint = await stack.scope.notifications.createWebhook(
        { url: hook.url, events: ["schedule.skipped"], format: "json", enabled: true, createdBy: "test" },
        secretKey(),
      );
      await notify(stack.db, queue, { workspaceId: stack.scope.workspaceId, event: "schedule.skipped", text: "nightly skipped" });
      const [delivery] = await settled(endpoint.id, 1);
      expect(delivery).toMatchObject({ status: "failed", attempts: 5, lastResponseCode: 503 });
      expect(hook.got).toHaveLength(5);
    } finally {
      await hook.close();
    }
  });

  it("sends a Slack-format endpoint Slack's incoming-webhook body", async () => {
    const hook = await receiver();
    try {
      const endpoint = await stack.scope.notifications.createWebhook(
        { url: hook.url, events: ["gate.tripped"], format: "slack", enabled: true, createdBy: "test" },
        secretKey(),
      );
      await notify(stack.db, queue, {
        workspaceId: stack.scope.workspaceId,
        event: "gate.tripped",
        text: "Gate tripped on run 1a2b3c4d: p95 > +10%",
        path: "/runs/1a2b3c4d",
      });
      await settled(endpoint.id, 1);
      const body = JSON.parse(hook.got[0]!.body);
      expect(Object.keys(body)).toEqual(["text"]);
      const { name } = await stack.db.workspace.findUniqueOrThrow({ where: { id: stack.scope.workspaceId } });
      expect(body.text).toBe(
        `*opsbench* (${name}): Gate tripped on run 1a2b3c4d: p95 &gt; +10% <https://bench.example.com/runs/1a2b3c4d|Open in opsbench>`,
      );
      expect(signatureVerifies(hook.got[0]!, endpoint.secret)).toBe(true);
    } finally {
      await hook.close();
    }
  });

  it("never connects to an address the egress rule refuses, and fails such a delivery at once", async () => {
    // Written straight to the table (the API refuses it at save: apps/web/test/notifications.e2e.test.ts), as a row
    // saved under a looser allowlist would be: the worker judges it again before sending.
    for (const url of ["http://10.0.0.5/hook", "http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:1/hook"]) {
      const endpoint = await stack.scope.notifications.createWebhook(
        { url, events: ["run.failed"], format: "json", enabled: true, createdBy: "test" },
        secretKey(),
      );
      await notify(stack.db, queue, {
        workspaceId: stack.scope.workspaceId,
        event: "test",
        text: "egress",
        only: { endpointId: endpoint.id },
      });
      const [delivery] = await settled(endpoint.id, 1);
      expect(delivery).toMatchObject({ status: "failed", attempts: 1, lastResponseCode: null });
      expect(delivery!.lastError).toMatch(/^webhook to .* refused: /);
      await stack.scope.notifications.removeWebhook(endpoint.id);
    }
    const log = await stack.scope.notifications.deliveries({ limit: 200 });
    expect(log.some((d) => d.destination.startsWith("http://10.0.0.5"))).toBe(false); // removed with its endpoint
  });

  it("sends nothing to a disabled endpoint or one not subscribed to the event", async () => {
    const hook = await receiver();
    try {
      const off = await stack.scope.notifications.createWebhook(
        { url: hook.url, events: ["run.failed"], format: "json", enabled: false, createdBy: "test" },
        secretKey(),
      );
      const other = await stack.scope.notifications.createWebhook(
        { url: hook.url, events: ["gate.tripped"], format: "json", enabled: true, createdBy: "test" },
        secretKey(),
      );
      const sent = await notify(stack.db, queue, { workspaceId: stack.scope.workspaceId, event: "run.failed", text: "x" });
      expect((await deliveriesOf(off.id)).length + (await deliveriesOf(other.id)).length).toBe(0);
      // Only the endpoints of the earlier tests subscribed to run.failed (and enabled) got it.
      const subscribed = (await stack.scope.notifications.listWebhooks()).filter((w) => w.enabled && w.events.includes("run.failed"));
      expect(sent.deliveryIds).toHaveLength(subscribed.length);
    } finally {
      await hook.close();
    }
  });
});

describe("schedules", () => {
  it("tells a schedule's skipped tick, with its reason, once, from the worker that took the tick", async () => {
    const hook = await receiver();
    const scheduleQueue = createScheduleQueue(testRedisUrl());
    try {
      const endpoint = await stack.scope.notifications.createWebhook(
        { url: hook.url, events: ["schedule.skipped"], format: "json", enabled: true, createdBy: "test" },
        secretKey(),
      );
      await stack.scope.targets.put(taewaTarget("notify-sched-target", { replicas: 1 }));
      await stack.scope.workloads.put(shortRamp("notify-sched-ramp"));
      const schedule = await stack.scope.schedules.create({
        name: "notify-sched",
        what: { kind: "run", target: "notify-sched-target", workload: "notify-sched-ramp" },
        cron: "0 3 1 1 *",
        timeZone: "UTC",
        paused: false,
      });
      // The previous tick's run, still queued (a row no worker is given): the next tick is skipped for it.
      const previous = await stack.db.run.create({
        data: { workspaceId: stack.scope.workspaceId, status: "QUEUED", source: "k6-import", name: "still queued" },
      });
      await stack.db.scheduleTick.create({
        data: { scheduleId: schedule.id, tickAt: new Date("2026-01-01T03:00:00Z"), outcome: "RAN", runId: previous.id },
      });
      // The tick's job as BullMQ's job scheduler names it (repeat:<scheduler>:<tick millis>), twice: one tick.
      const tickAt = new Date("2027-01-01T03:00:00Z");
      for (let i = 0; i < 2; i++)
        await scheduleQueue.add("tick", { scheduleId: schedule.id }, { jobId: `repeat:test-${i}:${tickAt.getTime()}` });
      const [delivery] = await settled(endpoint.id, 1);
      expect(delivery!.status).toBe("delivered");
      const sent = JSON.parse(hook.got[0]!.body);
      expect(sent.event).toBe("schedule.skipped");
      expect(sent.text).toContain(`the previous run ${previous.id} is still queued`);
      expect(sent.detail).toMatchObject({ scheduleId: schedule.id, tickAt: tickAt.toISOString() });
      expect(signatureVerifies(hook.got[0]!, endpoint.secret)).toBe(true);
      // The second delivery of the same tick recorded nothing and told nobody.
      await new Promise((r) => setTimeout(r, 1000));
      expect(hook.got).toHaveLength(1);
    } finally {
      await scheduleQueue.close();
      await hook.close();
    }
  });
});

describe("series changes", () => {
  it("tells a 10% step once, when the runs from it confirm it, naming its commits; a flat series tells nothing", async () => {
    const hook = await receiver();
    try {
      const endpoint = await stack.scope.notifications.createWebhook(
        { url: hook.url, events: ["change.detected"], format: "json", enabled: true, createdBy: "test" },
        secretKey(),
      );
      // As the imports API does after each import: c1..c6 at 100 ms, c7.. at 110 ms.
      const toldAfter: number[] = [];
      for (let i = 1; i <= 11; i++) {
        const id = await importSeriesRun(stack.scope, "notify-step", i, i >= 7 ? 110 : 100);
        if ((await notifyNewChanges(stack.db, queue, id)).length > 0) toldAfter.push(i);
        // The same run looked at again tells nothing new.
        expect(await notifyNewChanges(stack.db, queue, id)).toEqual([]);
      }
      // Told once, with three runs or more from the step at c7 (index 6), never before the runs confirm it.
      expect(toldAfter).toHaveLength(1);
      expect(toldAfter[0]).toBeGreaterThanOrEqual(9);
      expect(toldAfter[0]).toBeLessThanOrEqual(10);
      const [delivery] = await settled(endpoint.id, 1);
      expect(delivery!.status).toBe("delivered");
      const sent = JSON.parse(hook.got[0]!.body);
      expect(sent).toMatchObject({ event: "change.detected", path: "/series/notify-step" });
      expect(sent.detail).toMatchObject({ metric: "latency", commits: { lastBefore: seriesCommit(6), firstAfter: seriesCommit(7) } });
      expect(sent.detail.relative).toBeGreaterThan(0.05);
      expect(sent.text).toContain(`${seriesCommit(6)}..${seriesCommit(7)}`);

      for (let i = 1; i <= 11; i++) {
        const id = await importSeriesRun(stack.scope, "notify-flat", i, 100);
        expect(await notifyNewChanges(stack.db, queue, id), `flat series, run ${i}`).toEqual([]);
      }
    } finally {
      await hook.close();
    }
  });
});

describe("e-mail", () => {
  it("sends an event through the workspace's SMTP server, logged in with its sealed password", async () => {
    const mails: { from: string; to: string[]; data: string; user: string | undefined }[] = [];
    const server = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true, // plain text on loopback: the test's server has no certificate
      disabledCommands: ["STARTTLS"],
      onAuth(auth, _session, cb) {
        if (auth.username === "opsbench" && auth.password === "s3cret-pass") cb(null, { user: auth.username });
        else cb(new Error("bad login"));
      },
      onData(stream, session, cb) {
        let data = "";
        stream.setEncoding("utf8");
        stream.on("data", (c: string) => (data += c));
        stream.on("end", () => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            data,
            user: session.user,
          });
          cb();
        });
      },
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.server.address() as AddressInfo;
    try {
      const saved = await stack.scope.notifications.saveSmtp(
        {
          host: "127.0.0.1",
          port,
          security: "none",
          from: "opsbench@bench.example.com",
          to: ["oncall@example.com", "lead@example.com"],
          username: "opsbench",
          password: "s3cret-pass",
          events: ["schedule.skipped"],
          enabled: true,
        },
        "test",
        secretKey(),
      );
      expect(saved).toMatchObject({ hasPassword: true, username: "opsbench" });
      const stored = await stack.db.notificationSmtp.findUniqueOrThrow({ where: { workspaceId: stack.scope.workspaceId } });
      expect(stored.password).not.toContain("s3cret-pass");
      await notify(stack.db, queue, {
        workspaceId: stack.scope.workspaceId,
        event: "schedule.skipped",
        text: "Schedule nightly-shop skipped: the previous run is still going",
        path: "/schedules",
      });
      await expect.poll(() => mails.length, { timeout: 60_000, interval: 200 }).toBe(1);
      const mail = mails[0]!;
      expect(mail.user).toBe("opsbench");
      expect(mail.from).toBe("opsbench@bench.example.com");
      expect(mail.to).toEqual(["oncall@example.com", "lead@example.com"]);
      // Headers may be folded onto several lines.
      const unfolded = mail.data.replace(/\r\n[ \t]+/g, " ");
      expect(unfolded).toContain("Subject: [opsbench] Schedule skipped: Schedule nightly-shop skipped: the previous run is still going");
      expect(unfolded).toContain("Open: https://bench.example.com/schedules");
      await expect
        .poll(async () => (await stack.scope.notifications.deliveries({ limit: 200 })).find((d) => d.channel === "email")?.status, {
          timeout: 30_000,
        })
        .toBe("delivered");
      const emailLog = (await stack.scope.notifications.deliveries({ limit: 200 })).filter((d) => d.channel === "email");
      expect(emailLog[0]?.destination).toBe("oncall@example.com, lead@example.com");
    } finally {
      await stack.scope.notifications.removeSmtp();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("refuses an SMTP server on a private address when it sends", async () => {
    await stack.scope.notifications.saveSmtp(
      {
        host: "192.168.1.1",
        port: 587,
        security: "starttls",
        from: "a@example.com",
        to: ["b@example.com"],
        events: ["run.failed"],
        enabled: true,
      },
      "test",
      secretKey(),
    );
    try {
      await notify(stack.db, queue, { workspaceId: stack.scope.workspaceId, event: "run.failed", text: "x" });
      await expect
        .poll(
          async () => (await stack.scope.notifications.deliveries({ limit: 200 })).find((d) => d.destination === "b@example.com")?.status,
          {
            timeout: 30_000,
          },
        )
        .toBe("failed");
      const failed = (await stack.scope.notifications.deliveries({ limit: 200 })).find((d) => d.destination === "b@example.com");
      expect(failed?.lastError).toContain("SMTP server to 192.168.1.1 port 587 refused: 192.168.1.1 is a private address (192.168.0.0/16)");
      expect(failed?.attempts).toBe(1);
    } finally {
      await stack.scope.notifications.removeSmtp();
    }
  });
});

// The protocols' own message definitions (Prometheus remote write 1.0's types.proto/remote.proto; opentelemetry-proto's
// metrics_service.proto, metrics.proto, common.proto, resource.proto), cut to the fields opsbench sends, with their
// field numbers and types: the decoder the test checks the exporter's bytes with.
const PROTOS = protobuf.parse(`
syntax = "proto3";
package prometheus;
message WriteRequest { repeated TimeSeries timeseries = 1; }
message TimeSeries { repeated Label labels = 1; repeated Sample samples = 2; }
message Label { string name = 1; string value = 2; }
message Sample { double value = 1; int64 timestamp = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message NumberDataPoint {
  repeated KeyValue attributes = 7; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  oneof value { double as_double = 4; sfixed64 as_int = 6; } uint32 flags = 8;
}
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Metric { string name = 1; string description = 2; string unit = 3; oneof data { Gauge gauge = 5; Sum sum = 7; } }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; string schema_url = 3; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; string schema_url = 3; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
`).root;
const decode = (type: string, bytes: Uint8Array) =>
  PROTOS.lookupType(`prometheus.${type}`).toObject(PROTOS.lookupType(`prometheus.${type}`).decode(bytes), {
    longs: String,
    defaults: true,
  });

describe("results export", () => {
  it("sends an imported run's per-second series by Prometheus remote write and OTLP, each value as the k6 file had it", async () => {
    // Four seconds; second s has 10 + 5s requests of 20 + 10s + k ms (k = 0, 1, ...), s of them failed, and s + 2 VUs.
    const t0 = Date.UTC(2026, 10, 20, 12, 0, 0);
    const perSecond = [0, 1, 2, 3].map((s) => Array.from({ length: 10 + 5 * s }, (_, k) => 20 + 10 * s + k));
    const requests: WrittenRequest[] = perSecond.flatMap((values, s) =>
      values.map((ms, k) => ({ atMs: s * 1000 + k * 20, ms, ok: k >= s })),
    );
    const commit = "0123456789abcdef0123456789abcdef01234567";
    const prom = await receiver([500, 200]);
    const otlp = await receiver();
    const dir = await mkdtemp(path.join(tmpdir(), "opsbench-export-"));
    const exporters = stack.scope.exporters;
    const made: string[] = [];
    try {
      made.push(
        (
          await exporters.create(
            {
              name: "prom",
              kind: "prometheus-remote-write",
              url: `${prom.url}/api/v1/write`,
              auth: "basic",
              username: "grafana",
              secret: "s3cret",
              enabled: true,
              createdBy: "test",
            },
            secretKey(),
          )
        ).id,
        (
          await exporters.create(
            {
              name: "otel",
              kind: "otlp-http",
              url: `${otlp.url}/v1/metrics`,
              auth: "bearer",
              secret: "tok-123",
              enabled: true,
              createdBy: "test",
            },
            secretKey(),
          )
        ).id,
        // A private address the egress rule refuses: its export fails at once, never connected to.
        (
          await exporters.create(
            { name: "inside", kind: "otlp-http", url: "http://10.0.0.5:4318/v1/metrics", auth: "none", enabled: true, createdBy: "test" },
            secretKey(),
          )
        ).id,
        // A disabled exporter gets nothing.
        (
          await exporters.create(
            { name: "off", kind: "otlp-http", url: `${otlp.url}/off`, auth: "none", enabled: false, createdBy: "test" },
            secretKey(),
          )
        ).id,
      );
      const runId = await importK6Requests(dir, "export-run", requests, {
        t0,
        load: perSecond.map((_, s) => ({ second: s, vus: s + 2, iterations: 10 + 5 * s })),
        importArgs: ["--commit", commit],
      });
      await expect
        .poll(async () => (await exporters.exports({ limit: 20 })).filter((e) => e.runId === runId && e.status !== "pending").length, {
          timeout: 60_000,
          interval: 200,
        })
        .toBe(3);
      const log = (await exporters.exports({ limit: 20 })).filter((e) => e.runId === runId);
      const byName = Object.fromEntries(log.map((e) => [e.exporterName, e]));
      expect(Object.keys(byName).sort()).toEqual(["inside", "otel", "prom"]);
      expect(byName.prom).toMatchObject({ status: "delivered", attempts: 2, lastResponseCode: 200 });
      expect(byName.prom!.attemptLog.map((a) => [a.ok, a.code])).toEqual([
        [false, 500],
        [true, 200],
      ]);
      expect(byName.otel).toMatchObject({ status: "delivered", attempts: 1, lastResponseCode: 200 });
      expect(byName.inside).toMatchObject({ status: "failed", attempts: 1 });
      expect(byName.inside!.lastError).toMatch(/^results export to 10\.0\.0\.5 port 4318 refused: 10\.0\.0\.5 is a private address/);
      // Sent once: the same run queued again goes nowhere.
      const queue = createExportQueue(testRedisUrl());
      try {
        expect(await exportRun(stack.db, queue, runId)).toEqual([]);
      } finally {
        await queue.close();
      }

      const expected = perSecond.map((values, s) => ({
        t: t0 + s * 1000,
        p50: exactQuantile(values, 0.5),
        p95: exactQuantile(values, 0.95),
        p99: exactQuantile(values, 0.99),
        requests: values.length,
        failures: s,
        vus: s + 2,
      }));
      // The latency histogram's buckets are 0.8% wide (core histograms): a quantile is within that of the exact one.
      const close = (got: number, want: number) => {
        expect(Math.abs(got - want) / want).toBeLessThan(0.01);
      };

      // Prometheus remote write: the spec's headers, snappy block format, WriteRequest.
      expect(prom.got).toHaveLength(2);
      const pr = prom.got[1]!;
      expect(pr.url).toBe("/hook/api/v1/write");
      expect(pr.headers).toMatchObject({
        "content-type": "application/x-protobuf",
        "content-encoding": "snappy",
        "x-prometheus-remote-write-version": "0.1.0",
        authorization: `Basic ${Buffer.from("grafana:s3cret").toString("base64")}`,
      });
      const write = decode("WriteRequest", uncompress(new Uint8Array(pr.raw))) as {
        timeseries: { labels: { name: string; value: string }[]; samples: { value: number; timestamp: string }[] }[];
      };
      const series = new Map(write.timeseries.map((ts) => [ts.labels.find((l) => l.name === "__name__")!.value, ts]));
      expect([...series.keys()].sort()).toEqual(
        [EXPORT_METRICS.p50, EXPORT_METRICS.p95, EXPORT_METRICS.p99, EXPORT_METRICS.requests, EXPORT_METRICS.failures, EXPORT_METRICS.vus]
          .map((m) => m.name)
          .sort(),
      );
      for (const ts of write.timeseries) {
        const names = ts.labels.map((l) => l.name);
        expect(names).toEqual([...names].sort());
        // An import has no target, workload or study: those labels are left out, not sent empty.
        expect(Object.fromEntries(ts.labels.map((l) => [l.name, l.value]))).toEqual({ __name__: expect.any(String), run: runId, commit });
        expect(ts.samples.map((x) => Number(x.timestamp))).toEqual(expected.map((e) => e.t));
      }
      const values = (m: keyof typeof EXPORT_METRICS) => series.get(EXPORT_METRICS[m].name)!.samples.map((x) => x.value);
      expect(values("requests")).toEqual(expected.map((e) => e.requests));
      expect(values("failures")).toEqual(expected.map((e) => e.failures));
      expect(values("vus")).toEqual(expected.map((e) => e.vus));
      for (const q of ["p50", "p95", "p99"] as const) {
        const got = values(q);
        expect(got).toHaveLength(expected.length);
        for (const [i, v] of got.entries()) close(v, expected[i]![q]);
      }

      // OTLP/HTTP: ExportMetricsServiceRequest, a gauge per metric, the run's labels as attributes, nanoseconds.
      expect(otlp.got).toHaveLength(1);
      const or = otlp.got[0]!;
      expect(or.url).toBe("/hook/v1/metrics");
      expect(or.headers).toMatchObject({ "content-type": "application/x-protobuf", authorization: "Bearer tok-123" });
      type Point = { timeUnixNano: string; asDouble: number; attributes: { key: string; value: { stringValue: string } }[] };
      const req = decode("ExportMetricsServiceRequest", new Uint8Array(or.raw)) as {
        resourceMetrics: {
          resource: { attributes: { key: string; value: { stringValue: string } }[] };
          scopeMetrics: { metrics: { name: string; unit: string; gauge: { dataPoints: Point[] } }[] }[];
        }[];
      };
      expect(req.resourceMetrics).toHaveLength(1);
      expect(req.resourceMetrics[0]!.resource.attributes).toEqual([{ key: "service.name", value: { stringValue: "opsbench" } }]);
      const metrics = new Map(req.resourceMetrics[0]!.scopeMetrics[0]!.metrics.map((m) => [m.name, m]));
      expect(metrics.get(EXPORT_METRICS.p95.name)!.unit).toBe("ms");
      const points = (m: keyof typeof EXPORT_METRICS) => metrics.get(EXPORT_METRICS[m].name)!.gauge.dataPoints;
      for (const p of points("requests")) {
        expect(Object.fromEntries(p.attributes.map((a) => [a.key, a.value.stringValue]))).toEqual({ run: runId, commit });
      }
      expect(points("requests").map((p) => BigInt(p.timeUnixNano))).toEqual(expected.map((e) => BigInt(e.t) * 1_000_000n));
      expect(points("requests").map((p) => p.asDouble)).toEqual(expected.map((e) => e.requests));
      expect(points("failures").map((p) => p.asDouble)).toEqual(expected.map((e) => e.failures));
      expect(points("vus").map((p) => p.asDouble)).toEqual(expected.map((e) => e.vus));
      for (const [i, p] of points("p99").entries()) close(p.asDouble, expected[i]!.p99);
      // The credentials are sealed at rest.
      const row = await stack.db.resultsExporter.findUniqueOrThrow({ where: { id: made[1]! } });
      expect(row.secret).toMatch(/^v1\./);
      expect(row.secret).not.toContain("tok-123");
    } finally {
      for (const id of made) await exporters.remove(id);
      await rm(dir, { recursive: true, force: true });
      await prom.close();
      await otlp.close();
    }
  });
});
