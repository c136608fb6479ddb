// Server-side pieces of the study routes (a private folder: not a route): the
// study queue, and a Redis publisher (to tell watchers of an abort at once).
import { createStudyQueue, type StudyQueue } from "@opsbench/jobs";
import Redis from "ioredis";
import { env } from "@/lib/env";
import { singleton } from "@/lib/server/singletons";

export const getStudyQueue = (): StudyQueue => singleton("study-queue", () => createStudyQueue(env.REDIS_URL));

export const getStudyPublisher = (): Redis =>
  singleton("study-publisher", () => {
    const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
    redis.on("error", (err) => console.error(`study publisher: ${err.message}`));
    return redis;
  });
