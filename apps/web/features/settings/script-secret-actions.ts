"use server";

// The settings page's script secrets (owners only): a value saved sealed, never shown again; deleted by id.
import { scriptSecretInput } from "@opsbench/api";
import { SecretKeyError } from "@opsbench/db";
import { revalidatePath } from "next/cache";
import { env } from "@/lib/env";
import { requireMember } from "@/lib/server/workspace";
import type { ActionResult } from "./actions";

export async function saveScriptSecretAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  const member = await requireMember();
  if (member.role !== "owner") return { error: "only owners manage secrets" };
  const parsed = scriptSecretInput.safeParse({ name: String(form.get("name") ?? "").trim(), value: String(form.get("value") ?? "") });
  if (!parsed.success) return { error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
  try {
    const saved = await member.scope.scriptSecrets.put(parsed.data.name, parsed.data.value, env.OPSBENCH_SECRET_KEY);
    await member.scope.audit.record({
      actor: member.email,
      action: "secret.save",
      subjectKind: "secret",
      subjectId: saved.id,
      detail: { name: saved.name, replaced: saved.replaced },
    });
    revalidatePath("/settings");
    return { value: `${saved.name} ${saved.replaced ? "replaced" : "saved"}; scripts read it as __ENV.${saved.name} when a run names it` };
  } catch (err) {
    if (err instanceof SecretKeyError) return { error: `secrets cannot be saved on this server: ${err.message}` };
    throw err;
  }
}

export async function deleteScriptSecretAction(form: FormData): Promise<void> {
  const member = await requireMember();
  if (member.role !== "owner") throw new Error("only owners manage secrets");
  const r = await member.scope.scriptSecrets.remove(String(form.get("id")));
  await member.scope.audit.record({
    actor: member.email,
    action: "secret.delete",
    subjectKind: "secret",
    subjectId: r.id,
    detail: { name: r.name },
  });
  revalidatePath("/settings");
}
