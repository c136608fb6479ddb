// The checks every scope piece makes before it touches a row by id: the row must
// exist in this workspace (NotFoundError otherwise, the same for "elsewhere").
import type { Db } from "../client";
import { NotFoundError } from "../errors";

export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

export function workspaceAccess(db: Db, workspaceId: string) {
  return {
    assertRun: async (id: string) => {
      const run = isUuid(id) ? await db.run.findFirst({ where: { id, workspaceId }, select: { id: true } }) : null;
      if (!run) throw new NotFoundError("run", id);
    },
    assertRuns: async (ids: string[]) => {
      const bad = ids.find((id) => !isUuid(id));
      if (bad !== undefined) throw new NotFoundError("run", bad);
      const found = await db.run.findMany({ where: { id: { in: ids }, workspaceId }, select: { id: true } });
      const missing = ids.find((id) => !found.some((f) => f.id === id));
      if (missing) throw new NotFoundError("run", missing);
    },
    assertStudy: async (id: string) => {
      const s = isUuid(id) ? await db.study.findFirst({ where: { id, workspaceId }, select: { id: true } }) : null;
      if (!s) throw new NotFoundError("study", id);
    },
  };
}
export type WorkspaceAccess = ReturnType<typeof workspaceAccess>;
