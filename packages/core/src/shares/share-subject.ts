// What a share link shows (share_links.kind and .subject): exactly these runs, this
// study, or these groups of runs side by side; nothing else of the workspace.
import { z } from "zod";

export const SHARE_KINDS = ["run", "study", "comparison"] as const;
export const shareKindSchema = z.enum(SHARE_KINDS);
export type ShareKind = z.infer<typeof shareKindSchema>;

export const shareSubjectSchema = z.object({
  runIds: z.array(z.string()).optional(),
  studyId: z.string().optional(),
  groups: z.array(z.object({ label: z.string().optional(), runIds: z.array(z.string()) })).optional(),
});
export type ShareSubject = z.infer<typeof shareSubjectSchema>;

/** Every run a subject names directly (a study's runs are the study's). */
export const subjectRunIds = (s: ShareSubject): string[] => [...(s.runIds ?? []), ...(s.groups ?? []).flatMap((g) => g.runIds)];
