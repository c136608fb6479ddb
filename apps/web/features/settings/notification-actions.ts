"use server";

// The settings page's notification changes (owners only), the same rules as /api/v1/webhooks and
// /api/v1/notifications/smtp: the egress rule at save, the secret shown once, an audit entry each.
import { smtpInput, webhookInput } from "@opsbench/api";
import { NOTIFICATION_EVENTS, smtpServerUrl } from "@opsbench/core";
import { notify } from "@opsbench/jobs";
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { outboundRefusal } from "@/lib/server/endpoint-policy";
import { getDb, getNotificationQueue } from "@/lib/server/singletons";
import { requireMember } from "@/lib/server/workspace";
import { env } from "@/lib/env";
import type { ActionResult } from "./actions";

const failure = (err: unknown): ActionResult => ({ error: err instanceof Error ? err.message : String(err) });
const issues = (err: { issues: { path: PropertyKey[]; message: string }[] }) =>
  err.issues.map((i) => `${i.path.map(String).join(".") || "input"}: ${i.message}`).join("; ");

async function owner() {
  const member = await requireMember();
  if (member.role !== "owner") throw new Error("only owners manage notifications");
  return member;
}

/** This web app's own address (the request's host): a webhook may not point back at it. */
async function selfUrl(): Promise<string | null> {
  const host = (await headers()).get("host");
  return host ? `http://${host}` : null;
}

const checkedEvents = (form: FormData) => NOTIFICATION_EVENTS.filter((e) => form.get(`event:${e}`) === "on");

export async function createWebhookAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  try {
    const member = await owner();
    const parsed = webhookInput.safeParse({
      url: String(form.get("url") ?? "").trim(),
      events: checkedEvents(form),
      format: String(form.get("format") ?? "json"),
    });
    if (!parsed.success) return { error: issues(parsed.error) };
    const refusal = outboundRefusal("webhook", parsed.data.url, await selfUrl());
    if (refusal) return { error: refusal };
    const created = await member.scope.notifications.createWebhook({ ...parsed.data, createdBy: member.email }, env.OPSBENCH_SECRET_KEY);
    await member.scope.audit.record({
      actor: member.email,
      action: "webhook.create",
      subjectKind: "webhook",
      subjectId: created.id,
      detail: { url: created.url, events: created.events, format: created.format },
    });
    revalidatePath("/settings");
    return { value: created.secret };
  } catch (err) {
    return failure(err);
  }
}

export async function deleteWebhookAction(form: FormData): Promise<void> {
  const member = await owner();
  const removed = await member.scope.notifications.removeWebhook(String(form.get("id")));
  await member.scope.audit.record({
    actor: member.email,
    action: "webhook.delete",
    subjectKind: "webhook",
    subjectId: removed.id,
    detail: { url: removed.url },
  });
  revalidatePath("/settings");
}

export async function setWebhookEnabledAction(form: FormData): Promise<void> {
  const member = await owner();
  const enabled = form.get("enabled") === "true";
  const updated = await member.scope.notifications.updateWebhook(String(form.get("id")), { enabled });
  await member.scope.audit.record({
    actor: member.email,
    action: "webhook.update",
    subjectKind: "webhook",
    subjectId: updated.id,
    detail: { enabled },
  });
  revalidatePath("/settings");
}

/** Queues a test event to one endpoint; the delivery log shows how it went. */
export async function testWebhookAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  try {
    const member = await owner();
    const endpoint = await member.scope.notifications.getWebhook(String(form.get("id")));
    await notify(getDb(), getNotificationQueue(), {
      workspaceId: member.workspaceId,
      event: "test",
      text: `Test event for ${endpoint.url}: if you can read this, opsbench reaches your endpoint`,
      path: "/settings#notifications",
      only: { endpointId: endpoint.id },
      detail: { endpointId: endpoint.id },
    });
    await member.scope.audit.record({
      actor: member.email,
      action: "webhook.test",
      subjectKind: "webhook",
      subjectId: endpoint.id,
      detail: { url: endpoint.url },
    });
    revalidatePath("/settings");
    return { value: "test event queued: see the delivery log" };
  } catch (err) {
    return failure(err);
  }
}

export async function saveSmtpAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  try {
    const member = await owner();
    const field = (k: string) => String(form.get(k) ?? "").trim();
    const parsed = smtpInput.safeParse({
      host: field("host"),
      port: Number(field("port") || "587"),
      security: field("security") || "starttls",
      from: field("from"),
      to: field("to")
        .split(/[,\s]+/)
        .filter(Boolean),
      ...(field("username") ? { username: field("username") } : {}),
      ...(field("password") ? { password: field("password") } : {}),
      events: checkedEvents(form),
      enabled: form.get("enabled") === "on",
    });
    if (!parsed.success) return { error: issues(parsed.error) };
    const refusal = outboundRefusal("SMTP server", smtpServerUrl(parsed.data.host, parsed.data.port), await selfUrl());
    if (refusal) return { error: refusal };
    const saved = await member.scope.notifications.saveSmtp(parsed.data, member.email, env.OPSBENCH_SECRET_KEY);
    await member.scope.audit.record({
      actor: member.email,
      action: "smtp.save",
      subjectKind: "smtp",
      subjectId: member.workspaceId,
      detail: {
        host: saved.host,
        port: saved.port,
        to: saved.to,
        events: saved.events,
        passwordChanged: parsed.data.password !== undefined,
      },
    });
    revalidatePath("/settings");
    return { value: `saved: e-mail goes through ${saved.host}:${saved.port} to ${saved.to.join(", ")}` };
  } catch (err) {
    return failure(err);
  }
}

export async function deleteSmtpAction(): Promise<void> {
  const member = await owner();
  if (await member.scope.notifications.removeSmtp())
    await member.scope.audit.record({ actor: member.email, action: "smtp.delete", subjectKind: "smtp", subjectId: member.workspaceId });
  revalidatePath("/settings");
}
