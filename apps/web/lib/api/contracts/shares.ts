// What the API returns for share links: a link made (with its token, shown once), the list, a revocation.
import { SHARE_KINDS, shareSubjectSchema } from "@opsbench/core";
import { z } from "zod";
import { shareInputs } from "../../../features/share/share-subject";
import { id, isoTime, nullableIsoTime } from "./wire";

/** POST /api/v1/shares: a run, a study or a comparison, by `kind` (the handler parses the kind, then its branch). */
export const shareBody = z.discriminatedUnion("kind", [shareInputs.run, shareInputs.study, shareInputs.comparison]);

export const shareCreatedSchema = z.strictObject({
  id,
  kind: z.enum(SHARE_KINDS),
  title: z.string().nullable(),
  token: z.string().min(20),
  path: z.string().startsWith("/share/"),
  url: z.url(),
  createdAt: isoTime,
  expiresAt: nullableIsoTime,
});

export const shareListItemSchema = z.strictObject({
  id,
  kind: z.enum(SHARE_KINDS),
  title: z.string().nullable(),
  subject: shareSubjectSchema,
  createdAt: isoTime,
  revokedAt: nullableIsoTime,
  expiresAt: nullableIsoTime,
});

export const shareRevokedSchema = z.strictObject({ id, revoked: z.literal(true) });
