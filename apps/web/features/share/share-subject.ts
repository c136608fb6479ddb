// What a share link may show (POST /api/v1/shares), and the stored form of it
// (core's shareSubjectSchema): a run ({ runIds: [id] }), a study ({ studyId }) or a comparison ({ groups }).
import { SHARE_KINDS, type ShareKind, type ShareSubject } from "@opsbench/core";
import { z } from "zod";
import { comparisonGroupsInput } from "@/features/compare/comparison-input";

const title = z.string().trim().min(1).max(120).optional();
/** When the link stops working (answers 404, as a revoked one); none: it works until revoked. */
const expiresAt = z.iso.datetime({ offset: true }).optional();
const uuid = (what: string) => z.uuid({ message: `not a ${what} id (expected a UUID)` });

export const shareKindInput = z.object({ kind: z.enum(SHARE_KINDS) }).loose();

export const shareInputs = {
  run: z.object({ kind: z.literal("run"), subject: z.object({ runId: uuid("run") }).strict(), title, expiresAt }).strict(),
  study: z.object({ kind: z.literal("study"), subject: z.object({ studyId: uuid("study") }).strict(), title, expiresAt }).strict(),
  comparison: z.object({ kind: z.literal("comparison"), subject: comparisonGroupsInput, title, expiresAt }).strict(),
};
export type ShareInput = z.infer<(typeof shareInputs)[ShareKind]>;

/** The subject as it is stored (and compared, to find the links of a page's subject). */
export function storedSubject(input: ShareInput): ShareSubject {
  switch (input.kind) {
    case "run":
      return { runIds: [input.subject.runId] };
    case "study":
      return { studyId: input.subject.studyId };
    case "comparison":
      return { groups: input.subject.groups.map((g) => (g.label ? { label: g.label, runIds: g.runIds } : { runIds: g.runIds })) };
  }
}
