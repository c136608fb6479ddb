// Notifications through the worker (docs/notifications.md), against real receivers on loopback (the test's
// OPSBENCH_LOAD_ALLOWED_HOSTS lets 127.0.0.1:1024-65535 through, as an admin's host:port entry would):
// three failed runs reach a webhook as three signed deliveries whose signatures verify with the endpoint's secret;
// a receiver that answers 500 twice gets the event on the third attempt, every attempt logged; a Slack-format
// endpoint gets Slack's { "text" } body; an address the egress rule refuses is never connected to; e-mail goes
// through the workspace's SMTP server (smtp-server on loopback, with a password).
import { createNotificationQueue, createScheduleQueue, type NotificationQueue, notify, notifyNewChanges, startRun } from "@opsbench/jobs";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useWorker } from "../../../tests/file-services";
import { openTestStack, shortRamp, taewaTarget, testRedisUrl, testSecretKey, waitForFinal } from "../../../tests/helpers";
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
