// Progress of a run, published by the worker on Redis pub/sub and relayed by
// the web app to browsers as server-sent events. Messages only say "look
// again"; the Run row stays the truth.
import { z } from "zod";

export const runChannel = (runId: string) => `opsbench:run:${runId}`;

export const runUpdate = z.object({
  runId: z.string(),
  kind: z.enum(["status", "step", "results", "event"]),
  status: z.string().optional(),
  at: z.string(),
});
export type RunUpdate = z.infer<typeof runUpdate>;

export interface Publisher {
  publish(channel: string, message: string): Promise<unknown>;
}

export function publishRunUpdate(redis: Publisher, update: Omit<RunUpdate, "at">) {
  const msg: RunUpdate = { ...update, at: new Date().toISOString() };
  return redis.publish(runChannel(update.runId), JSON.stringify(msg));
}
