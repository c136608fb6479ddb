// A workspace's notifications (docs/notifications.md): its webhook endpoints (the signing secret sealed with
// OPSBENCH_SECRET_KEY, answered once at creation), its SMTP settings (the password sealed, never answered) and the
// delivery log. Beside the scope, the functions the notifier and the worker use: recordNotification writes one
// delivery per subscribed destination of an event, openDelivery gives the worker what one attempt needs (the secret
// or password opened), recordDeliveryAttempt writes each attempt's outcome.
import { randomBytes, randomUUID } from "node:crypto";
import {
  type DeliveryAttempt,
  deliveryAttemptsSchema,
  type NotificationEvent,
  type NotificationEventType,
  notificationEventSchema,
  readStoredJson,
  type WebhookFormat,
} from "@opsbench/core";
import type { Db } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { NotFoundError } from "../errors";
import { jsonInput } from "../json-column";
import { openSecret, sealContext, sealSecret } from "../workspaces/secret-box";
import { isUuid } from "./workspace-access";

export type SmtpSecurity = "tls" | "starttls" | "none";

export interface WebhookRow {
  id: string;
  url: string;
  events: NotificationEventType[];
  format: WebhookFormat;
  enabled: boolean;
  createdBy: string;
  createdAt: string;
}

export interface SmtpSettingsRow {
  host: string;
  port: number;
  security: SmtpSecurity;
  from: string;
  to: string[];
  username: string | null;
  hasPassword: boolean;
  events: NotificationEventType[];
  enabled: boolean;
  updatedBy: string;
  updatedAt: string;
}

export type { DeliveryAttempt };

export interface DeliveryRow {
  id: string;
  channel: "webhook" | "email";
  endpointId: string | null;
  destination: string;
  event: NotificationEvent["event"];
  summary: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  attemptLog: DeliveryAttempt[];
  lastResponseCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

const webhookContext = (workspaceId: string, id: string) => sealContext(workspaceId, `webhook:${id}`);
const smtpContext = (workspaceId: string) => sealContext(workspaceId, "smtp");

/** The secret a receiver verifies signatures with: 32 random bytes, base64url, after a prefix that says what it is. */
const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

/** Where a delivery goes, for the log: a webhook URL's origin and path without its query (a Slack URL's path is its secret). */
export function webhookDestination(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.length > 24 ? `${u.pathname.slice(0, 21)}...` : u.pathname;
    return `${u.origin}${path}`;
  } catch {
    return url.slice(0, 60);
  }
}

type WebhookRecord = Prisma.WebhookEndpointGetPayload<object>;
const webhookRow = (r: WebhookRecord): WebhookRow => ({
  id: r.id,
  url: r.url,
  events: r.events as NotificationEventType[],
  format: r.format as WebhookFormat,
  enabled: r.enabled,
  createdBy: r.createdBy,
  createdAt: r.createdAt.toISOString(),
});

type DeliveryRecord = Prisma.NotificationDeliveryGetPayload<object>;
const deliveryRow = (r: DeliveryRecord): DeliveryRow => ({
  id: r.id,
  channel: r.channel as DeliveryRow["channel"],
  endpointId: r.endpointId,
  destination: r.destination,
  event: r.event as DeliveryRow["event"],
  summary: r.summary,
  status: r.status as DeliveryRow["status"],
  attempts: r.attempts,
  attemptLog: readStoredJson(deliveryAttemptsSchema, r.attemptLog) ?? [],
  lastResponseCode: r.lastResponseCode,
  lastError: r.lastError,
  createdAt: r.createdAt.toISOString(),
  deliveredAt: r.deliveredAt?.toISOString() ?? null,
});

type SmtpRecord = Prisma.NotificationSmtpGetPayload<object>;
const smtpRow = (r: SmtpRecord): SmtpSettingsRow => ({
  host: r.host,
  port: r.port,
  security: r.security as SmtpSecurity,
  from: r.fromAddress,
  to: r.toAddresses,
  username: r.username,
  hasPassword: r.password !== null,
  events: r.events as NotificationEventType[],
  enabled: r.enabled,
  updatedBy: r.updatedBy,
  updatedAt: r.updatedAt.toISOString(),
});

export function notificationsScope(db: Db, workspaceId: string) {
  const findWebhook = async (id: string) => {
    const row = isUuid(id) ? await db.webhookEndpoint.findFirst({ where: { id, workspaceId } }) : null;
    if (!row) throw new NotFoundError("webhook", id);
    return row;
  };
  return {
    /** Creates an endpoint with a new signing secret, sealed; the answer carries the secret, which nothing answers again. */
    createWebhook: async (
      input: { url: string; events: NotificationEventType[]; format: WebhookFormat; enabled: boolean; createdBy: string },
      secretKey: string | undefined,
    ): Promise<WebhookRow & { secret: string }> => {
      const id = randomUUID();
      const secret = newWebhookSecret();
      const sealed = sealSecret(secret, secretKey, webhookContext(workspaceId, id));
      const row = await db.webhookEndpoint.create({ data: { id, workspaceId, ...input, secret: sealed } });
      return { ...webhookRow(row), secret };
    },
    listWebhooks: async (): Promise<WebhookRow[]> =>
      (await db.webhookEndpoint.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } })).map(webhookRow),
    getWebhook: async (id: string): Promise<WebhookRow> => webhookRow(await findWebhook(id)),
    updateWebhook: async (
      id: string,
      patch: Partial<{ url: string; events: NotificationEventType[]; format: WebhookFormat; enabled: boolean }>,
    ): Promise<WebhookRow> => {
      await findWebhook(id);
      return webhookRow(await db.webhookEndpoint.update({ where: { id }, data: patch }));
    },
    /** Deletes the endpoint and its delivery log (a job still queued for it then finds nothing and ends). */
    removeWebhook: async (id: string): Promise<WebhookRow> => {
      const row = await findWebhook(id);
      await db.webhookEndpoint.delete({ where: { id } });
      return webhookRow(row);
    },
    smtp: async (): Promise<SmtpSettingsRow | null> => {
      const row = await db.notificationSmtp.findUnique({ where: { workspaceId } });
      return row ? smtpRow(row) : null;
    },
    /** Saves the SMTP settings; a password given is sealed, none given keeps the stored one unless `clearPassword`. */
    saveSmtp: async (
      input: {
        host: string;
        port: number;
        security: SmtpSecurity;
        from: string;
        to: string[];
        username?: string | undefined;
        password?: string | undefined;
        clearPassword?: boolean | undefined;
        events: NotificationEventType[];
        enabled: boolean;
      },
      updatedBy: string,
      secretKey: string | undefined,
    ): Promise<SmtpSettingsRow> => {
      const password =
        input.password !== undefined
          ? { password: sealSecret(input.password, secretKey, smtpContext(workspaceId)) }
          : input.clearPassword
            ? { password: null }
            : {};
      const data = {
        host: input.host,
        port: input.port,
        security: input.security,
        fromAddress: input.from,
        toAddresses: input.to,
        username: input.username ?? null,
        events: input.events,
        enabled: input.enabled,
        updatedBy,
      };
      const row = await db.notificationSmtp.upsert({
        where: { workspaceId },
        create: { workspaceId, ...data, password: password.password ?? null },
        update: { ...data, ...password },
      });
      return smtpRow(row);
    },
    removeSmtp: async (): Promise<boolean> => (await db.notificationSmtp.deleteMany({ where: { workspaceId } })).count > 0,
    /** The delivery log, newest first; `endpoint`: one endpoint's (NotFoundError for one not of this workspace). */
    deliveries: async (opts: { endpoint?: string | undefined; limit: number }): Promise<DeliveryRow[]> => {
      if (opts.endpoint) await findWebhook(opts.endpoint);
      const rows = await db.notificationDelivery.findMany({
        where: { workspaceId, ...(opts.endpoint ? { endpointId: opts.endpoint } : {}) },
        orderBy: { createdAt: "desc" },
        take: opts.limit,
      });
      return rows.map(deliveryRow);
    },
  };
}
export type NotificationsScope = ReturnType<typeof notificationsScope>;

/** The workspace as an event names it. */
export async function workspaceIdentity(db: Db, workspaceId: string): Promise<{ id: string; slug: string; name: string }> {
  return db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { id: true, slug: true, name: true } });
}

/**
 * Whether a "change.detected" about this change (the run it starts at, the metric) was recorded already for the
 * workspace: a run looked at twice (a retried teardown, an import re-sent) tells a change once.
 */
export async function changeAlreadyTold(db: Db, workspaceId: string, change: { runId: string; metric: string }): Promise<boolean> {
  const row = await db.notificationDelivery.findFirst({
    where: {
      workspaceId,
      event: "change.detected",
      AND: [{ payload: { path: ["runId"], equals: change.runId } }, { payload: { path: ["detail", "metric"], equals: change.metric } }],
    },
    select: { id: true },
  });
  return row !== null;
}

/**
 * One pending delivery per destination the event goes to: each enabled webhook endpoint subscribed to its type, and
 * the workspace's e-mail when enabled and subscribed. `only`: a test of one endpoint (its `test` event goes there alone).
 */
export async function recordNotification(db: Db, event: NotificationEvent, only?: { endpointId: string }): Promise<string[]> {
  const parsed = notificationEventSchema.parse(event);
  const workspaceId = parsed.workspace.id;
  const endpoints = only
    ? await db.webhookEndpoint.findMany({ where: { id: only.endpointId, workspaceId } })
    : parsed.event === "test"
      ? []
      : await db.webhookEndpoint.findMany({ where: { workspaceId, enabled: true, events: { has: parsed.event } } });
  const smtp =
    only || parsed.event === "test"
      ? null
      : await db.notificationSmtp.findFirst({ where: { workspaceId, enabled: true, events: { has: parsed.event } } });
  const common = {
    workspaceId,
    event: parsed.event,
    summary: parsed.text.slice(0, 500),
    payload: jsonInput(notificationEventSchema, parsed),
  };
  const rows = [
    ...endpoints.map((e) => ({
      ...common,
      id: randomUUID(),
      endpointId: e.id,
      channel: "webhook",
      destination: webhookDestination(e.url),
    })),
    ...(smtp ? [{ ...common, id: randomUUID(), endpointId: null, channel: "email", destination: smtp.toAddresses.join(", ") }] : []),
  ];
  if (rows.length) await db.notificationDelivery.createMany({ data: rows });
  return rows.map((r) => r.id);
}

/** What one attempt needs: the event, and where it goes with its secret opened. Null when the delivery (or its endpoint) is gone. */
export type OpenedDelivery = {
  id: string;
  workspaceId: string;
  event: NotificationEvent;
  status: DeliveryRow["status"];
  attempts: number;
} & (
  | { channel: "webhook"; webhook: { id: string; url: string; format: WebhookFormat; secret: string; enabled: boolean } }
  | {
      channel: "email";
      smtp: {
        host: string;
        port: number;
        security: SmtpSecurity;
        from: string;
        to: string[];
        username: string | null;
        password: string | null;
      } | null;
    }
);

export async function openDelivery(db: Db, deliveryId: string, secretKey: string | undefined): Promise<OpenedDelivery | null> {
  const row = await db.notificationDelivery.findUnique({ where: { id: deliveryId }, include: { endpoint: true } });
  if (!row) return null;
  const base = {
    id: row.id,
    workspaceId: row.workspaceId,
    event: notificationEventSchema.parse(row.payload),
    status: row.status as DeliveryRow["status"],
    attempts: row.attempts,
  };
  if (row.channel === "webhook") {
    const e = row.endpoint;
    if (!e) return null;
    const secret = openSecret(e.secret, secretKey, webhookContext(row.workspaceId, e.id));
    return {
      ...base,
      channel: "webhook",
      webhook: { id: e.id, url: e.url, format: e.format as WebhookFormat, secret, enabled: e.enabled },
    };
  }
  const s = await db.notificationSmtp.findUnique({ where: { workspaceId: row.workspaceId } });
  return {
    ...base,
    channel: "email",
    smtp: s
      ? {
          host: s.host,
          port: s.port,
          security: s.security as SmtpSecurity,
          from: s.fromAddress,
          to: s.toAddresses,
          username: s.username,
          password: s.password === null ? null : openSecret(s.password, secretKey, smtpContext(row.workspaceId)),
        }
      : null,
  };
}

/** Appends an attempt; `outcome`: "delivered", "failed" (no attempt follows), or "pending" (a retry follows). */
export async function recordDeliveryAttempt(
  db: Db,
  deliveryId: string,
  attempt: DeliveryAttempt,
  outcome: DeliveryRow["status"],
): Promise<void> {
  const row = await db.notificationDelivery.findUnique({ where: { id: deliveryId }, select: { attemptLog: true } });
  if (!row) return;
  const log = readStoredJson(deliveryAttemptsSchema, row.attemptLog) ?? [];
  await db.notificationDelivery.update({
    where: { id: deliveryId },
    data: {
      attempts: { increment: 1 },
      attemptLog: jsonInput(deliveryAttemptsSchema, [...log, attempt]),
      lastResponseCode: attempt.code,
      lastError: attempt.error,
      status: outcome,
      ...(outcome === "delivered" ? { deliveredAt: new Date(attempt.at) } : {}),
    },
  });
}

/** What an event says about a run: its workspace, study, a short label ("1a2b3c4d (shop x ramp)") and its error. */
export async function runNotice(
  db: Db,
  runId: string,
): Promise<{ workspaceId: string; studyId: string | null; label: string; status: string; error: string | null } | null> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: {
      workspaceId: true,
      studyId: true,
      status: true,
      error: true,
      name: true,
      target: { select: { name: true } },
      workload: { select: { name: true } },
    },
  });
  if (!run) return null;
  const what = run.target && run.workload ? `${run.target.name} x ${run.workload.name}` : run.name;
  return {
    workspaceId: run.workspaceId,
    studyId: run.studyId,
    label: `${runId.slice(0, 8)}${what ? ` (${what})` : ""}`,
    status: run.status,
    error: run.error,
  };
}
