"use server";

// The settings page's credential changes (owners only): saved after a worker has checked them, deleted by id.
import { type CredentialSecret, credentialInput } from "@opsbench/core";
import { revalidatePath } from "next/cache";
import { ApiError } from "@/lib/api/errors";
import { saveCheckedCredential } from "@/lib/server/credential-save";
import { requireMember } from "@/lib/server/workspace";
import type { ActionResult } from "./actions";

/** The form's fields as a secret: kubernetes takes the kubeconfig as it is, aws and gcp a JSON object of their fields. */
function secretOf(kind: string, value: string, context: string): unknown {
  if (kind === "kubernetes") return { kind, kubeconfig: value, ...(context ? { context } : {}) };
  try {
    return { kind, ...(JSON.parse(value) as object) };
  } catch {
    return { kind };
  }
}

export async function saveCredentialAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  const member = await requireMember();
  if (member.role !== "owner") return { error: "only owners manage credentials" };
  const field = (k: string) => String(form.get(k) ?? "").trim();
  const parsed = credentialInput.safeParse({
    name: field("name"),
    secret: secretOf(field("kind"), field("value"), field("context")),
    editorsMayDeploy: form.get("editorsMayDeploy") === "on",
  });
  if (!parsed.success) return { error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
  try {
    const saved = await saveCheckedCredential(member.scope, {
      name: parsed.data.name,
      secret: parsed.data.secret as CredentialSecret,
      editorsMayDeploy: parsed.data.editorsMayDeploy,
    });
    revalidatePath("/settings");
    return { value: `${saved.name} saved (checked ${saved.checkedAt})` };
  } catch (err) {
    return { error: err instanceof ApiError || err instanceof Error ? err.message : String(err) };
  }
}

export async function deleteCredentialAction(form: FormData): Promise<void> {
  const member = await requireMember();
  if (member.role !== "owner") throw new Error("only owners manage credentials");
  await member.scope.credentials.remove(String(form.get("id")));
  revalidatePath("/settings");
}

/** An owner opens a credential to editors or closes it (editorsMayDeploy). */
export async function setEditorsMayDeployAction(form: FormData): Promise<void> {
  const member = await requireMember();
  if (member.role !== "owner") throw new Error("only owners manage credentials");
  const updated = await member.scope.credentials.setEditorsMayDeploy(String(form.get("id")), form.get("editorsMayDeploy") === "true");
  await member.scope.audit.record({
    actor: member.email,
    action: "credential.settings",
    subjectKind: "credential",
    subjectId: updated.id,
    detail: { name: updated.name, editorsMayDeploy: updated.editorsMayDeploy },
  });
  revalidatePath("/settings");
}
