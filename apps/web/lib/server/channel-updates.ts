// One shared Redis subscriber connection for all server-sent-event streams,
// fanned out to listeners per channel (a run's, a study's). A channel is
// subscribed while it has at least one listener.
import Redis from "ioredis";

type Listener = (message: string) => void;

export function createChannelUpdates(redisUrl: string) {
  const redis = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: null });
  redis.on("error", (err) => console.error(`updates subscriber: ${err.message}`));
  const listeners = new Map<string, Set<Listener>>();
  redis.on("message", (channel: string, message: string) => {
    for (const l of listeners.get(channel) ?? []) {
      try {
        l(message);
      } catch (err) {
        console.error(`updates listener: ${(err as Error).message}`);
      }
    }
  });

  return {
    /** Calls `listener` with each raw message published on the channel; returns the unsubscribe function. */
    async subscribe(channel: string, listener: Listener): Promise<() => void> {
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

export type ChannelUpdates = ReturnType<typeof createChannelUpdates>;
