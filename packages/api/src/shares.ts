// What the API takes and returns for share links: what a link may show (POST /api/v1/shares), a link made (with
// its token, shown once), the list, a revocation, and what a link shows anyone who has it.
import { SHARE_KINDS, type ShareKind, shareSubjectSchema } from "@opsbench/core";
import { z } from "zod";
import { compareDataSchema, comparisonGroupsInput } from "./comparisons";
import { id, isoTime, nullableIsoTime } from "./wire";

const title = z.string().trim().min(1).max(120).optional();
/** When the link stops working (answers 404, as a revoked one); none: it works until revoked. */
const expiresAt = z.iso.datetime({ offset: true }).optional();
const uuid = (what: string) => z.uuid({ message: `not a ${what} id (expected a UUID)` });

/** The kind alone, read first: the handler then parses that kind's branch, so a mistake is reported at its own path. */
export const shareKindInput = z.object({ kind: z.enum(SHARE_KINDS) }).loose();

/** A run ({ runId }), a study ({ studyId }) or a comparison ({ groups }), by `kind`. */
export const shareInputs = {
  run: z.object({ kind: z.literal("run"), subject: z.object({ runId: uuid("run") }).strict(), title, expiresAt }).strict(),
  study: z.object({ kind: z.literal("study"), subject: z.object({ studyId: uuid("study") }).strict(), title, expiresAt }).strict(),
  comparison: z.object({ kind: z.literal("comparison"), subject: comparisonGroupsInput, title, expiresAt }).strict(),
};
export type ShareInput = z.infer<(typeof shareInputs)[ShareKind]>;

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

/** GET /api/v1/public/shares/{token}: the link's token is the path. */
export const publicShareParams = z.object({ token: z.string() });

/** GET /api/v1/public/shares/{token}: what a share link shows anyone who has it. */
export const publicShareSchema = z.strictObject({
  kind: z.enum(SHARE_KINDS),
  title: z.string().nullable(),
  comparison: compareDataSchema,
  /** The verdict method's version when the link was made (null: before versions were kept); comparison.verdictVersion is today's. */
  sharedUnderVerdictVersion: z.number().int().nullable(),
});
