// What a worker needs to split runs over load generators (PipelineDeps.segments). A file of its own: the run's context
// names it, and coordinator.ts, which uses it, imports the run's context.
import type { LoadQueue } from "@opsbench/jobs";
import type { Redis } from "ioredis";

/** What a worker needs to split runs over generators. */
export interface SegmentSettings {
  queue: LoadQueue;
  redis: Redis;
  redisUrl: string;
  /** How long every generator has to start k6 and report ready. */
  readyDeadlineMs: number;
  /**
   * The host this worker loads from (its load lock's host id): a loopback target is loaded only by generators on it;
   * generators on other hosts take their own host's load lock (docs/generators.md, "Generators on several hosts").
   */
  host?: string;
}
