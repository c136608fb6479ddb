// The "notifications" queue's handler: one attempt at one delivery (a webhook POST or an e-mail), recorded on its row
// whatever happens. A failed attempt throws, so BullMQ tries again after the worker's backoff (10 s, 20 s, 40 s, 80 s
// by default) until NOTIFICATION_ATTEMPTS are spent; the row then says "failed". An egress refusal, a disabled
// endpoint or missing SMTP settings fail it at once: another attempt would meet the same answer.
import { emailOf, webhookBody } from "@opsbench/core";
import { type Db, openDelivery, recordDeliveryAttempt, type DeliveryAttempt } from "@opsbench/db";
import type { NotificationJobPayload } from "@opsbench/jobs";
import { type Job, UnrecoverableError } from "bullmq";
import type { Logger } from "../logger";
import { sendEmail } from "./email-send";
import { EgressRefused, type EgressPolicy } from "./egress";
import { type SendOutcome, sendWebhook } from "./webhook-send";

export interface NotificationDeps {
  db: Db;
  /** OPSBENCH_SECRET_KEY: opens the endpoints' secrets and the SMTP password. */
  secretKey: string | undefined;
  policy: EgressPolicy;
  /** OPSBENCH_PUBLIC_URL: the events' links are made from it (none: no link). */
  publicUrl: string | undefined;
  log: Logger;
  /** Per attempt (default: webhook-send.ts's and email-send.ts's). */
  timeoutMs?: number;
}

/** Why an attempt is not worth repeating. */
class FinalFailure extends Error {}

export function deliverNotificationJob(deps: NotificationDeps) {
  return async ({ deliveryId }: NotificationJobPayload, job: Job): Promise<{ status: string }> => {
    const at = new Date().toISOString();
    const started = Date.now();
    const attempt = (outcome: SendOutcome): DeliveryAttempt => ({
      at,
      ok: outcome.ok,
      code: outcome.code,
      error: outcome.error,
      ms: Date.now() - started,
    });
    let delivery: Awaited<ReturnType<typeof openDelivery>>;
    try {
      delivery = await openDelivery(deps.db, deliveryId, deps.secretKey);
    } catch (err) {
      // A secret that does not open (OPSBENCH_SECRET_KEY missing or changed) will not open on the next attempt either.
      const error = `the delivery could not be read: ${(err as Error).message}`;
      await recordDeliveryAttempt(deps.db, deliveryId, attempt({ ok: false, code: null, error }), "failed");
      throw new UnrecoverableError(error);
    }
    // Gone (its endpoint was deleted) or already settled (a redelivered job): nothing to do.
    if (!delivery) return { status: "gone" };
    if (delivery.status !== "pending") return { status: delivery.status };
    let outcome: SendOutcome;
    let final = false;
    try {
      if (delivery.channel === "webhook") {
        if (!delivery.webhook.enabled && delivery.event.event !== "test") throw new FinalFailure("the endpoint was disabled");
        const body = webhookBody(delivery.event, delivery.webhook.format, deps.publicUrl);
        outcome = await sendWebhook(delivery.webhook, body, deps.policy, deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {});
      } else {
        if (!delivery.smtp) throw new FinalFailure("the workspace has no SMTP settings any more");
        outcome = await sendEmail(
          delivery.smtp,
          emailOf(delivery.event, deps.publicUrl),
          deps.policy,
          deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {},
        );
      }
    } catch (err) {
      final = err instanceof EgressRefused || err instanceof FinalFailure;
      outcome = { ok: false, code: null, error: (err as Error).message };
    }
    const last = final || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    await recordDeliveryAttempt(deps.db, deliveryId, attempt(outcome), outcome.ok ? "delivered" : last ? "failed" : "pending");
    if (outcome.ok) return { status: "delivered" };
    deps.log.warn(
      { deliveryId, channel: delivery.channel, attempt: job.attemptsMade + 1, error: outcome.error, last },
      "notification not delivered",
    );
    if (last) throw new UnrecoverableError(outcome.error ?? "not delivered");
    throw new Error(outcome.error ?? "not delivered");
  };
}
