"use server";

// The settings page's changes, each checked here against the signed-in member (and again by Better Auth).
import { workspaceRoleSchema } from "@opsbench/core";
import { createApiToken, revokeApiToken, setOpenSignUp } from "@opsbench/db";
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { getAuth, getDb } from "@/lib/server/singletons";
import { requireMember } from "@/lib/server/workspace";

export interface ActionResult {
  error?: string;
  /** A new token's key (shown once) or an invitation's link path. */
  value?: string;
}

const failure = (err: unknown): ActionResult => ({ error: err instanceof Error ? err.message : String(err) });

export async function createTokenAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  const member = await requireMember();
  const name = String(form.get("name") ?? "").trim() || "token";
  try {
    const { key } = await createApiToken(await getAuth(), member, name);
    revalidatePath("/settings");
    return { value: key };
  } catch (err) {
    return failure(err);
  }
}

export async function revokeTokenAction(form: FormData): Promise<void> {
  await requireMember();
  await revokeApiToken(await getAuth(), await headers(), String(form.get("id")));
  revalidatePath("/settings");
}

export async function inviteAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  const member = await requireMember();
  if (member.role !== "owner") return { error: "only owners invite" };
  const role = workspaceRoleSchema.safeParse(form.get("role"));
  if (!role.success) return { error: "pick a role" };
  try {
    const invitation = await (await getAuth()).api.createInvitation({
      headers: await headers(),
      body: { email: String(form.get("email") ?? ""), role: role.data, organizationId: member.workspaceId },
    });
    revalidatePath("/settings");
    return { value: `/invite/${invitation.id}` };
  } catch (err) {
    return failure(err);
  }
}

export async function setOpenSignUpAction(form: FormData): Promise<void> {
  const member = await requireMember();
  if (!member.instanceAdmin) throw new Error("only the instance admin changes sign-up");
  await setOpenSignUp(getDb(), form.get("open") === "true");
  revalidatePath("/settings");
}

export async function switchWorkspaceAction(form: FormData): Promise<void> {
  await requireMember();
  await (await getAuth()).api.setActiveOrganization({
    headers: await headers(),
    body: { organizationId: String(form.get("workspaceId")) },
  });
  revalidatePath("/", "layout");
}
