// Whether a request may call a route that needs `required`: a session or API token of a member whose role
// in their workspace is at least that. The answer says why not, for apiRoute to turn into 401 or 403.
import { roleAllows, type WorkspaceRole } from "@opsbench/core";
import { currentMember, type SignedInMember, withScope } from "@/lib/server/workspace";

export type Authorization = { ok: true; member: SignedInMember } | { ok: false; code: "unauthorized" | "forbidden"; message: string };

export async function authorize(request: Request, required: WorkspaceRole): Promise<Authorization> {
  const member = await currentMember(request);
  if (!member) return { ok: false, code: "unauthorized", message: "sign in, or send an API token as 'Authorization: Bearer <token>'" };
  const scoped = withScope(member);
  if (!scoped) return { ok: false, code: "forbidden", message: "you are not a member of any workspace" };
  if (!roleAllows(scoped.role, required))
    return { ok: false, code: "forbidden", message: `this needs the ${required} role in the workspace; you are ${scoped.role}` };
  return { ok: true, member: scoped };
}
