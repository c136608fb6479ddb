// The study queue contract: one job per study, { studyId }, jobId = studyId.
// The worker runs the study's runs in their recorded order, in-process.
import { Queue } from "bullmq";
import { z } from "zod";
import { redisConnection } from "./queues";

export const STUDY_QUEUE = "study-execute";

export const studyJobPayload = z.object({ studyId: z.uuid() }).strict();
export type StudyJobPayload = z.infer<typeof studyJobPayload>;

export function createStudyQueue(redisUrl: string, prefix = "opsbench") {
  const queue = new Queue<StudyJobPayload>(STUDY_QUEUE, {
    connection: redisConnection(redisUrl),
    prefix,
    defaultJobOptions: {
      // Never repeated behind the user's back; the Study and Run rows record the outcome.
      attempts: 1,
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
  });
  queue.on("error", (err) => console.error(`study queue: ${err.message}`));
  return queue;
}
export type StudyQueue = ReturnType<typeof createStudyQueue>;

/** Enqueues a study; jobId = studyId, so enqueuing twice delivers once. */
export async function enqueueStudy(queue: StudyQueue, payload: StudyJobPayload) {
  const data = studyJobPayload.parse(payload);
  return queue.add("execute", data, { jobId: data.studyId });
}
