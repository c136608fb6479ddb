"use server";

// The settings page's changes, each checked here against the signed-in member (and again by Better Auth).
import { workspaceRoleSchema } from "@opsbench/core";
import { createApiToken, createInvitationLink, revokeApiToken, setOpenSignUp, setSignUpWorkspace } from "@opsbench/db";
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { env } from "@/lib/env";
import { instanceMail } from "@/lib/server/instance-mail";
import { getAuth, getDb } from "@/lib/server/singletons";
import { requireMember } from "@/lib/server/workspace";

export interface ActionResult {
  error?: string;
  /** A new token's key (shown once) or an invitation's link path. */
  value?: string;
  /** A word about what else happened (an invitation mailed, or why not). */
  note?: string;
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
    const email = String(form.get("email") ?? "");
    const { path } = await createInvitationLink(await getAuth(), getDb(), await headers(), {
      email,
      role: role.data,
      workspaceId: member.workspaceId,
    });
    revalidatePath("/settings");
    // With the instance's mail the link is also mailed to the address (docs/self-hosting.md "Mail"); the owner still
    // sees it, to hand on when a mail does not arrive.
    if (instanceMail) {
      const host = (await headers()).get("host");
      const base = env.OPSBENCH_PUBLIC_URL ?? (host ? `http://${host}` : "");
      try {
        await instanceMail.send({
          to: email,
          subject: "[opsbench] You are invited to an opsbench workspace",
          text: `${member.email} invited you to their opsbench workspace as ${role.data}.\n\nAccept here (the link works once):\n${base.replace(/\/+$/, "")}${path}\n`,
        });
        return { value: path, note: `mailed to ${email}` };
      } catch (err) {
        return { value: path, note: `not mailed (${(err as Error).message}): hand the link on yourself` };
      }
    }
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
