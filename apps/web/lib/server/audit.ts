// The audit log's writer for route handlers: who (the signed-in member; "anonymous" until accounts exist) did what.
import type { AuditEntry, WorkspaceScope } from "@opsbench/db";

/** Who made the request. Accounts replace this with the signed-in member's name. */
export function actorOf(_request: Request): string {
  return "anonymous";
}

/** Records an audit event; a failure to record is logged, never turned into a failed request after the fact. */
export async function audit(scope: WorkspaceScope, request: Request, entry: Omit<AuditEntry, "actor">): Promise<void> {
  try {
    await scope.audit.record({ actor: actorOf(request), ...entry });
  } catch (err) {
    console.error(`audit ${entry.action} ${entry.subjectId}: ${(err as Error).message}`);
  }
}
