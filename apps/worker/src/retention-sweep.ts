// The retention sweep: every hour (OPSBENCH_RETENTION_SWEEP_SECONDS; a tick of the installation's
// "retention-sweep" job scheduler, taken by one worker: maintenance.ts), each workspace with a retention
// period loses the raw per-second series of runs that finished longer ago than that; the runs keep their
// summaries (packages/db runs/retention.ts, docs/faults.md).
import { pruneExpiredSeries, type Db } from "@opsbench/db";
import type { Logger } from "./logger";

/** One pass; answers how many runs lost their series. Throws when the database cannot be reached (the job fails; the next tick tries again). */
export async function sweepRetention(db: Db, log: Logger): Promise<number> {
  const runs = await pruneExpiredSeries(db);
  if (runs.length) log.info({ runs: runs.length }, "retention: pruned the per-second series of finished runs");
  return runs.length;
}
