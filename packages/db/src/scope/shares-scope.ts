import { readStoredJson, shareSubjectSchema, subjectRunIds, type ShareKind, type ShareSubject } from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { createShareLink } from "../shares/share-links";
import { isUuid, type WorkspaceAccess } from "./workspace-access";

/** A workspace's share links. */
export function sharesScope(db: Db, workspaceId: string, access: WorkspaceAccess) {
  return {
    /** Creates a link; everything it names must belong to this workspace. */
    create: async (input: { kind: ShareKind; subject: ShareSubject; title?: string; expiresAt?: Date }) => {
      await access.assertRuns(subjectRunIds(input.subject));
      if (input.subject.studyId) await access.assertStudy(input.subject.studyId);
      return createShareLink(db, workspaceId, input);
    },
    list: async () =>
      (
        await db.shareLink.findMany({
          where: { workspaceId },
          orderBy: { createdAt: "desc" },
          select: { id: true, kind: true, title: true, subject: true, createdAt: true, revokedAt: true, expiresAt: true },
        })
      ).map((l) => ({ ...l, subject: readStoredJson(shareSubjectSchema, l.subject) ?? {} })),
    revoke: async (id: string) => {
      const r = isUuid(id)
        ? await db.shareLink.updateMany({ where: { id, workspaceId, revokedAt: null }, data: { revokedAt: new Date() } })
        : { count: 0 };
      if (r.count === 0) throw new NotFoundError("share", id);
    },
  };
}
