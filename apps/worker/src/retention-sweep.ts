// The retention sweep: at start and every hour, each workspace with a retention period
// loses the raw per-second series of runs that finished longer ago than that; the runs
// keep their summaries (packages/db retention.ts, docs/faults.md).
import { pruneExpiredSeries, type Db } from "@opsbench/db";
import type { Logger } from "./logger";

export const RETENTION_SWEEP_MS = 60 * 60_000;

export function startRetentionSweep(db: Db, log: Logger, everyMs = RETENTION_SWEEP_MS): { stop: () => void } {
  const sweep = () =>
    pruneExpiredSeries(db).then(
      (runs) => runs.length && log.info({ runs: runs.length }, "retention: pruned the per-second series of finished runs"),
      (err) => log.warn({ err }, "retention sweep failed; trying again at the next"),
    );
  void sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
