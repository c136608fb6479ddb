"use server";

// The settings page's changes, each checked here against the signed-in member (and again by Better Auth).
import { workspaceRoleSchema } from "@opsbench/core";
import { createApiToken, createInvitationLink, revokeApiToken, setOpenSignUp, setSignUpWorkspace } from "@opsbench/db";
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
  const expires = String(form.get("expiresInDays") ?? "90");
  try {
    const { key } = await createApiToken(await getAuth(), member, name, expires === "never" ? null : Number(expires));
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
    const { path } = await createInvitationLink(await getAuth(), getDb(), await headers(), {
      email: String(form.get("email") ?? ""),
      role: role.data,
      workspaceId: member.workspaceId,
    });
    revalidatePath("/settings");
    return { value: path };
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

/** Where accounts that sign up openly land (as viewers): a workspace, or none. */
export async function setSignUpWorkspaceAction(form: FormData): Promise<void> {
  const member = await requireMember();
  if (!member.instanceAdmin) throw new Error("only the instance admin changes sign-up");
  const id = String(form.get("workspaceId") ?? "");
  await setSignUpWorkspace(getDb(), id === "" ? null : id);
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
