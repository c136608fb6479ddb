// What a workspace is told about (docs/notifications.md): the events, the one payload every channel is built from,
// and the bodies each channel sends (opsbench's JSON, a Slack incoming-webhook body, an e-mail's subject and text).
// Pure: the worker adds the absolute link (OPSBENCH_PUBLIC_URL) and signs; the channels only shape.
import { z } from "zod";

/** The events a webhook or the workspace's e-mail may subscribe to. */
export const NOTIFICATION_EVENTS = ["run.failed", "gate.tripped", "change.detected", "schedule.skipped"] as const;
export type NotificationEventType = (typeof NOTIFICATION_EVENTS)[number];
export const notificationEventType = z.enum(NOTIFICATION_EVENTS);

/** What the settings page calls each event. */
export const NOTIFICATION_EVENT_LABELS: Record<NotificationEventType, string> = {
  "run.failed": "Run failed",
  "gate.tripped": "Gate tripped",
  "change.detected": "Change detected",
  "schedule.skipped": "Schedule skipped",
};

/** "test": what "Send test" sends, to one endpoint only (never subscribed to). */
export const sentEventType = z.enum([...NOTIFICATION_EVENTS, "test"]);
export type SentEventType = z.infer<typeof sentEventType>;

export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** One event as it is stored with each delivery and sent (the JSON format adds `url`, the absolute link). */
export const notificationEventSchema = z.object({
  /** The event's id: the same in every delivery of one event (a receiver can drop a repeat by it). */
  id: z.uuid(),
  event: sentEventType,
  workspace: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }),
  runId: z.uuid().nullable(),
  studyId: z.uuid().nullable(),
  /** One line for a person ("Run 1a2b3c4d (shop x ramp) failed: ..."). */
  text: z.string().min(1).max(2000),
  /** The app's page about it, from the app's root ("/runs/<id>"); null when it has none. */
  path: z.string().startsWith("/").nullable(),
  occurredAt: z.iso.datetime({ offset: true }),
  /** Event-specific facts (the failed gate rules, the error, the schedule). */
  detail: z.record(z.string(), z.unknown()),
});
export type NotificationEvent = z.infer<typeof notificationEventSchema>;

/** The absolute link of an event's page, or null without a public URL (OPSBENCH_PUBLIC_URL) or a page. */
export function eventLink(event: Pick<NotificationEvent, "path">, publicUrl: string | undefined): string | null {
  if (!event.path || !publicUrl) return null;
  return `${publicUrl.replace(/\/+$/, "")}${event.path}`;
}

/** The request body a webhook of `format` gets: opsbench's JSON (the event and its link), or Slack's `{ "text" }`. */
export function webhookBody(event: NotificationEvent, format: WebhookFormat, publicUrl: string | undefined): string {
  const url = eventLink(event, publicUrl);
  if (format === "slack") return JSON.stringify({ text: slackText(event, url) });
  return JSON.stringify({ ...event, url });
}

/** Slack's mrkdwn: `<`, `>` and `&` are escaped in the event's own text; the link is Slack's `<url|label>`. */
export function slackText(event: NotificationEvent, url: string | null): string {
  const escaped = event.text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `*opsbench* (${event.workspace.name}): ${escaped}${url ? ` <${url}|Open in opsbench>` : ""}`;
}

/** An e-mail of the event: its subject and plain text. */
export function emailOf(event: NotificationEvent, publicUrl: string | undefined): { subject: string; text: string } {
  const url = eventLink(event, publicUrl);
  const label = event.event === "test" ? "Test" : NOTIFICATION_EVENT_LABELS[event.event];
  const first = event.text.split("\n")[0] ?? event.text;
  return {
    subject: `[opsbench] ${label}: ${first.length > 120 ? `${first.slice(0, 117)}...` : first}`,
    text: [
      event.text,
      "",
      `Workspace: ${event.workspace.name}`,
      `Event: ${event.event} at ${event.occurredAt}`,
      ...(url ? [`Open: ${url}`] : []),
      "",
      "You get this because your opsbench workspace sends these events to this address (Settings, Notifications).",
    ].join("\n"),
  };
}

/** One attempt at a delivery, as the delivery log keeps it (notification_deliveries.attempt_log, in order). */
export const deliveryAttemptSchema = z.strictObject({
  at: z.iso.datetime(),
  ok: z.boolean(),
  /** The receiver's HTTP status or SMTP reply code; null when none came (refused, time-out, connection error). */
  code: z.number().int().nullable(),
  error: z.string().nullable(),
  ms: z.number().int().min(0),
});
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;
export const deliveryAttemptsSchema = z.array(deliveryAttemptSchema);

/** Attempts per delivery, and the first retry's delay: each later one waits twice as long (10 s, 20 s, 40 s, 80 s). */
export const NOTIFICATION_ATTEMPTS = 5;
export const NOTIFICATION_RETRY_BASE_MS = 10_000;
/** The delay before attempt `attempt + 1` after `attempt` failed (1-based). */
export const retryDelayMs = (attempt: number, baseMs = NOTIFICATION_RETRY_BASE_MS) => baseMs * 2 ** (attempt - 1);
