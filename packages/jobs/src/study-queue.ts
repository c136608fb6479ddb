// The study queue contract: one job per study, { studyId }, jobId = studyId.
// The worker runs the study's runs in their recorded order, in-process.
import { z } from "zod";
import { createOpsbenchQueue } from "./queues";

export const STUDY_QUEUE = "study-execute";

export const studyJobPayload = z.object({ studyId: z.uuid() }).strict();
export type StudyJobPayload = z.infer<typeof studyJobPayload>;

export const createStudyQueue = (redisUrl: string, prefix?: string) => createOpsbenchQueue<StudyJobPayload>(STUDY_QUEUE, redisUrl, prefix);
export type StudyQueue = ReturnType<typeof createStudyQueue>;

/** Enqueues a study; jobId = studyId, so enqueuing twice delivers once. */
export async function enqueueStudy(queue: StudyQueue, payload: StudyJobPayload) {
  const data = studyJobPayload.parse(payload);
  return queue.add("execute", data, { jobId: data.studyId });
}
