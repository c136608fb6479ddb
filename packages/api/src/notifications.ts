// What the API takes and returns for notifications (docs/notifications.md): webhook endpoints (the signing secret
// answered once, at creation), the workspace's SMTP settings (the password write-only), the delivery log, a test
// send, and the gate-tripped report the CLI sends after `opsbench compare` fails a gate.
import { deliveryAttemptSchema, NOTIFICATION_EVENTS, notificationEventType, sentEventType, WEBHOOK_FORMATS } from "@opsbench/core";
import { z } from "zod";
import { id, isoTime, nullableIsoTime } from "./wire";

const events = z
  .array(notificationEventType)
  .min(1, `name at least one event (${NOTIFICATION_EVENTS.join(", ")})`)
  .transform((list) => [...new Set(list)]);

/** A URL's parts, or null: the refinements below run on a string the URL check may already have refused. */
const urlOf = (u: string): URL | null => {
  try {
    return new URL(u);
  } catch {
    return null;
  }
};

const webhookUrl = z
  .url({ message: "not a URL (e.g. https://hooks.example.com/opsbench)" })
  .max(2000)
  .refine((u) => !urlOf(u) || /^https?:$/.test(urlOf(u)!.protocol), "a webhook URL is http:// or https://")
  .refine((u) => !urlOf(u)?.username && !urlOf(u)?.password, "a webhook URL carries no user or password (the signature authenticates)");

/** POST /api/v1/webhooks. */
export const webhookInput = z
  .object({
    url: webhookUrl,
    events,
    /** "json": opsbench's signed JSON; "slack": a Slack incoming-webhook body ({ "text": ... }). */
    format: z.enum(WEBHOOK_FORMATS).default("json"),
    enabled: z.boolean().default(true),
  })
  .strict();
export type WebhookInput = z.infer<typeof webhookInput>;

/** PUT /api/v1/webhooks/{id}: what is given changes, the rest (and the secret) stays. */
export const webhookUpdate = z
  .object({
    url: webhookUrl.optional(),
    events: events.optional(),
    format: z.enum(WEBHOOK_FORMATS).optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type WebhookUpdate = z.infer<typeof webhookUpdate>;

export const webhookItemSchema = z.strictObject({
  id,
  url: z.string(),
  events: z.array(notificationEventType),
  format: z.enum(WEBHOOK_FORMATS),
  enabled: z.boolean(),
  createdBy: z.string(),
  createdAt: isoTime,
});
export type WebhookItem = z.infer<typeof webhookItemSchema>;

/** POST /api/v1/webhooks answers the signing secret once; no later answer has it. */
export const webhookCreatedSchema = webhookItemSchema.extend({ secret: z.string().startsWith("whsec_") });

export const webhookDeletedSchema = z.strictObject({ id, deleted: z.literal(true) });

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

export const deliveryItemSchema = z.strictObject({
  id,
  channel: z.enum(["webhook", "email"]),
  endpointId: id.nullable(),
  destination: z.string(),
  event: sentEventType,
  summary: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int().min(0),
  attemptLog: z.array(deliveryAttemptSchema),
  lastResponseCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: isoTime,
  deliveredAt: nullableIsoTime,
});
export type DeliveryItem = z.infer<typeof deliveryItemSchema>;

/** GET /api/v1/webhooks/deliveries: newest first; ?endpoint= one endpoint's, ?limit= how many (default 50). */
export const deliveriesQuery = z
  .object({
    endpoint: z.uuid({ message: "not a webhook id (expected a UUID)" }).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

/** POST /api/v1/webhooks/{id}/test: the delivery queued. */
export const webhookTestSchema = z.strictObject({ deliveryId: id, status: z.literal("pending") });

export const SMTP_SECURITY = ["tls", "starttls", "none"] as const;

/** PUT /api/v1/notifications/smtp: the workspace's SMTP server and recipients. A password left out keeps the stored one. */
export const smtpInput = z
  .object({
    host: z
      .string()
      .trim()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.:[\]-]+$/, "a host name or IP address"),
    port: z.number().int().min(1).max(65535).default(587),
    /** "tls": implicit TLS (465); "starttls": STARTTLS required (587); "none": plain text (a relay the admin allows). */
    security: z.enum(SMTP_SECURITY).default("starttls"),
    from: z.email({ message: "not an e-mail address" }),
    to: z
      .array(z.email({ message: "not an e-mail address" }))
      .min(1, "name at least one recipient")
      .max(20),
    username: z.string().min(1).max(320).optional(),
    password: z.string().min(1).max(1000).optional(),
    /** true: forget the stored password (a password given as well wins). */
    clearPassword: z.boolean().optional(),
    events,
    enabled: z.boolean().default(true),
  })
  .strict();
export type SmtpInput = z.infer<typeof smtpInput>;

export const smtpSettingsSchema = z.strictObject({
  host: z.string(),
  port: z.number().int(),
  security: z.enum(SMTP_SECURITY),
  from: z.string(),
  to: z.array(z.string()),
  username: z.string().nullable(),
  /** Whether a password is stored (never the password). */
  hasPassword: z.boolean(),
  events: z.array(notificationEventType),
  enabled: z.boolean(),
  updatedBy: z.string(),
  updatedAt: isoTime,
});
export type SmtpSettings = z.infer<typeof smtpSettingsSchema>;

/** GET /api/v1/notifications/smtp: the settings, or null when the workspace sends no e-mail. */
export const smtpAnswerSchema = smtpSettingsSchema.nullable();
export const smtpDeletedSchema = z.strictObject({ deleted: z.boolean() });

/** POST /api/v1/runs/{id}/gate-tripped: what `opsbench compare` found failed. */
export const gateTrippedInput = z
  .object({
    baselineRunId: z.uuid({ message: "not a run id (expected a UUID)" }),
    /** The rules that failed, as the CLI printed them. */
    rules: z
      .array(z.strictObject({ rule: z.string().min(1).max(200), message: z.string().min(1).max(1000) }))
      .min(1, "name at least one failed rule")
      .max(50),
    /** The comparison's page (the CLI's link). */
    comparisonUrl: z.url().max(4000).optional(),
  })
  .strict();
export type GateTrippedInput = z.infer<typeof gateTrippedInput>;

export const gateTrippedSchema = z.strictObject({ eventId: id.nullable(), deliveries: z.number().int().min(0) });
