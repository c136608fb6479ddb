// Server-side pieces of the study routes (a private folder: not a route). The
// study queue, a Redis publisher (to tell watchers of an abort at once), and one
// shared subscriber fanned out to the server-sent-event streams per study channel.
import { createStudyQueue, studyChannel, type StudyQueue } from "@opsbench/jobs";
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

type Listener = (message: string) => void;

function createFanOut() {
  const redis = new Redis(env.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: null });
  redis.on("error", (err) => console.error(`study updates subscriber: ${err.message}`));
  const listeners = new Map<string, Set<Listener>>();
  redis.on("message", (channel: string, message: string) => {
    for (const l of listeners.get(channel) ?? []) {
      try {
        l(message);
      } catch (err) {
        console.error(`study updates listener: ${(err as Error).message}`);
      }
    }
  });
  return {
    /** Calls `listener` with each raw message published for the study; returns the unsubscribe function. */
    async subscribe(studyId: string, listener: Listener): Promise<() => void> {
      const channel = studyChannel(studyId);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await redis.subscribe(channel);
      }
      set.add(listener);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const current = listeners.get(channel);
        current?.delete(listener);
        if (current && current.size === 0) {
          listeners.delete(channel);
          redis.unsubscribe(channel).catch(() => {});
        }
      };
    },
  };
}

export const getStudyUpdates = () => singleton("study-updates", createFanOut);
