// Share links: unguessable (32 random bytes), read-only, revocable. Only the
// token's SHA-256 is stored, so the database alone cannot rebuild a link.
import { createHash, randomBytes } from "node:crypto";
import { readStoredJson, shareKindSchema, shareSubjectSchema, type ShareKind, type ShareSubject, VERDICT_VERSION } from "@opsbench/core";
import type { Db } from "../client";
import { jsonInput } from "../json-column";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export async function createShareLink(
  db: Db,
  workspaceId: string,
  input: { kind: ShareKind; subject: ShareSubject; title?: string; expiresAt?: Date },
) {
  const token = randomBytes(32).toString("base64url");
  const link = await db.shareLink.create({
    data: {
      workspaceId,
      tokenHash: hashToken(token),
      kind: input.kind,
      subject: jsonInput(shareSubjectSchema, input.subject),
      title: input.title ?? null,
      expiresAt: input.expiresAt ?? null,
      // The verdict method the sharer saw; the page says so when a later method decides its verdicts.
      verdictVersion: VERDICT_VERSION,
    },
  });
  return { id: link.id, token, kind: link.kind, createdAt: link.createdAt, expiresAt: link.expiresAt };
}

/** The live link for a token, or null for an unknown, malformed, revoked or expired one. */
export async function resolveShareLink(db: Db, token: string) {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const link = await db.shareLink.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!link || link.revokedAt || (link.expiresAt && link.expiresAt.getTime() <= Date.now())) return null;
  const kind = readStoredJson(shareKindSchema, link.kind);
  const subject = readStoredJson(shareSubjectSchema, link.subject);
  // A row this version cannot read shows nothing rather than something else.
  if (kind === null || subject === null) return null;
  return { id: link.id, workspaceId: link.workspaceId, kind, subject, title: link.title, verdictVersion: link.verdictVersion };
}
