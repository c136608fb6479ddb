// The audit log's writer for route handlers: who (the signed-in member, or its API token) did what.
import type { AuditEntry, WorkspaceScope } from "@opsbench/db";
import { currentMember } from "./workspace";

/** Who made the request: the member's email (and whether by API token); "local" when sign-in is off. */
export async function actorOf(request: Request): Promise<string> {
  const member = await currentMember(request).catch(() => null);
  if (!member) return "anonymous";
  return member.via === "token" ? `${member.email} (API token)` : member.email;
}

/** Records an audit event; a failure to record is logged, never turned into a failed request after the fact. */
export async function audit(scope: WorkspaceScope, request: Request, entry: Omit<AuditEntry, "actor">): Promise<void> {
  try {
    await scope.audit.record({ actor: await actorOf(request), ...entry });
  } catch (err) {
    console.error(`audit ${entry.action} ${entry.subjectId}: ${(err as Error).message}`);
  }
}
