// Which workspace a request acts in. The one place where authentication will go;
// until teams exist every request acts in the default workspace.
import { defaultWorkspaceId, workspaceScope, type WorkspaceScope } from "@opsbench/db";
import { getDb } from "./db";
import { singleton } from "./singletons";

const defaultWorkspace = () => singleton("default-workspace-id", () => defaultWorkspaceId(getDb()));

export async function resolveWorkspace(_request?: Request): Promise<WorkspaceScope> {
  let id: string;
  try {
    id = await defaultWorkspace();
  } catch (err) {
    // Do not cache a failure (e.g. Postgres was down at the first request).
    (globalThis as unknown as { __opsbench?: Map<string, unknown> }).__opsbench?.delete("default-workspace-id");
    throw err;
  }
  return workspaceScope(getDb(), id);
}
