// Progress of a study, published by the worker on Redis pub/sub (as runs do,
// run-updates.ts) and relayed to browsers as server-sent events. Messages say
// "look again" with a little progress; the Study row stays the truth.
import { z } from "zod";
import type { Publisher } from "./run-updates";

export const studyChannel = (studyId: string) => `opsbench:study:${studyId}`;

export const studyUpdate = z.object({
  studyId: z.string(),
  /** status: the study's status changed; run: one of its runs started or finished. */
  kind: z.enum(["status", "run"]),
  status: z.string().optional(),
  runId: z.string().optional(),
  runStatus: z.string().optional(),
  finished: z.number().int().optional(),
  total: z.number().int().optional(),
  etaSeconds: z.number().nullable().optional(),
  at: z.string(),
});
export type StudyUpdate = z.infer<typeof studyUpdate>;

export function publishStudyUpdate(redis: Publisher, update: Omit<StudyUpdate, "at">) {
  const msg: StudyUpdate = { ...update, at: new Date().toISOString() };
  return redis.publish(studyChannel(update.studyId), JSON.stringify(msg));
}
