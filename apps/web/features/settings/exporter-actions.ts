"use server";

// The settings page's results exporter changes (owners only), the same rules as /api/v1/exporters: the egress rule at
// save, the credential sealed and never shown again, an audit entry each.
import { exporterInput } from "@opsbench/api";
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { outboundRefusal } from "@/lib/server/endpoint-policy";
import { requireMember } from "@/lib/server/workspace";
import { env } from "@/lib/env";
import type { ActionResult } from "./actions";

const failure = (err: unknown): ActionResult => ({ error: err instanceof Error ? err.message : String(err) });

async function owner() {
  const member = await requireMember();
  if (member.role !== "owner") throw new Error("only owners manage results exporters");
  return member;
}

async function selfUrl(): Promise<string | null> {
  const host = (await headers()).get("host");
  return host ? `http://${host}` : null;
}

export async function createExporterAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  try {
    const member = await owner();
    const field = (k: string) => String(form.get(k) ?? "").trim();
    const auth = field("auth") || "none";
    const parsed = exporterInput.safeParse({
      name: field("name"),
      kind: field("kind"),
      url: field("url"),
      auth,
      ...(auth === "basic" && field("username") ? { username: field("username") } : {}),
      ...(auth !== "none" && field("secret") ? { secret: field("secret") } : {}),
    });
    if (!parsed.success)
      return { error: parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "input"}: ${i.message}`).join("; ") };
    const refusal = outboundRefusal("results export", parsed.data.url, await selfUrl());
    if (refusal) return { error: refusal };
    const created = await member.scope.exporters.create({ ...parsed.data, createdBy: member.email }, env.OPSBENCH_SECRET_KEY);
    await member.scope.audit.record({
      actor: member.email,
      action: "exporter.create",
      subjectKind: "exporter",
      subjectId: created.id,
      detail: { name: created.name, kind: created.kind, url: created.url, auth: created.auth },
    });
    revalidatePath("/settings");
    return { value: `saved: each run that succeeds from now on goes to ${created.name}` };
  } catch (err) {
    return failure(err);
  }
}

export async function deleteExporterAction(form: FormData): Promise<void> {
  const member = await owner();
  const removed = await member.scope.exporters.remove(String(form.get("id")));
  await member.scope.audit.record({
    actor: member.email,
    action: "exporter.delete",
    subjectKind: "exporter",
    subjectId: removed.id,
    detail: { name: removed.name, url: removed.url },
  });
  revalidatePath("/settings");
}

export async function setExporterEnabledAction(form: FormData): Promise<void> {
  const member = await owner();
  const enabled = form.get("enabled") === "true";
  const updated = await member.scope.exporters.update(String(form.get("id")), { enabled }, env.OPSBENCH_SECRET_KEY);
  await member.scope.audit.record({
    actor: member.email,
    action: "exporter.update",
    subjectKind: "exporter",
    subjectId: updated.id,
    detail: { enabled },
  });
  revalidatePath("/settings");
}
