// Which workspace a request acts in. The one place where authentication will go;
// until teams exist every request acts in the default workspace.
import { type WorkspaceScope, workspaceScope } from "@opsbench/db";
import { getDb, getDefaultWorkspaceId } from "./singletons";

export async function resolveWorkspace(_request?: Request): Promise<WorkspaceScope> {
  return workspaceScope(getDb(), await getDefaultWorkspaceId());
}
