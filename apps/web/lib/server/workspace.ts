// Who a request acts as and in which workspace: the one place pages and API routes learn it. An API token
// (Authorization: Bearer) or the session cookie names a member; the scope is that member's workspace.
import type { WorkspaceRole } from "@opsbench/core";
import { authenticateRequest, type RequestMember, type WorkspaceScope, workspaceScope } from "@opsbench/db";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { env } from "@/lib/env";
import { getAuth, getDb, getDefaultWorkspaceId } from "./singletons";

export interface SignedInMember extends RequestMember {
  workspaceId: string;
  role: WorkspaceRole;
  scope: WorkspaceScope;
}

/** OPSBENCH_AUTH=off (one person on their own machine): every request acts as the owner of "default". */
async function localOwner(): Promise<RequestMember> {
  const workspaceId = await getDefaultWorkspaceId();
  return { userId: "", email: "local", name: "local", workspaceId, role: "owner", via: "session", instanceAdmin: true };
}

/** The member a request (or, in a page, the current request's headers) acts as; null when nobody is signed in. */
export async function currentMember(request?: Request): Promise<RequestMember | null> {
  // Read first even when sign-in is off: it keeps pages per request (never prerendered at build time).
  const h = request ? request.headers : await headers();
  if (env.OPSBENCH_AUTH === "off") return localOwner();
  return authenticateRequest(await getAuth(), getDb(), h);
}

/** A member with a workspace, scoped to it; null when signed in without a workspace. */
export function withScope(member: RequestMember): SignedInMember | null {
  const { workspaceId, role } = member;
  if (!workspaceId || !role) return null;
  return { ...member, workspaceId, role, scope: workspaceScope(getDb(), workspaceId) };
}

/** For pages: the signed-in member in their workspace; sends anyone else to the sign-in page. */
export async function requireMember(): Promise<SignedInMember> {
  const member = await currentMember();
  if (!member) redirect("/sign-in");
  const scoped = withScope(member);
  if (!scoped) redirect("/no-workspace");
  return scoped;
}

/** For pages: the signed-in member's workspace scope (see requireMember). */
export async function resolveWorkspace(): Promise<WorkspaceScope> {
  return (await requireMember()).scope;
}
