// The load generators of a run on several (run_segments): one row per k6 execution segment,
// written by the run's worker (created, lost, cancelled) and by the worker that took the segment
// (claimed, ready, running, finished), plus the database server's clock that all of them correct to.
import { k6SummarySchema, readStoredJson, thresholdSourcesSchema, type GeneratorTotals } from "@opsbench/core";
import type { Db } from "../client";
import { Prisma } from "../generated/prisma/client";
import { jsonInput } from "../json-column";

export const SEGMENT_STATUSES = ["QUEUED", "STARTING", "READY", "RUNNING", "FINISHED", "FAILED", "LOST", "CANCELLED"] as const;
export type SegmentStatus = (typeof SEGMENT_STATUSES)[number];
/** A segment in one of these will not change any more. */
export const FINAL_SEGMENT_STATUSES: readonly SegmentStatus[] = ["FINISHED", "FAILED", "LOST", "CANCELLED"];

/**
 * The database server's clock minus this machine's (ms), from one SELECT clock_timestamp():
 * the reply's time is taken as the middle of the round trip.
 */
export async function databaseClockOffsetMs(db: Db): Promise<number> {
  const before = Date.now();
  const [row] = await db.$queryRaw<Array<{ now: Date }>>`SELECT clock_timestamp() AS now`;
  const after = Date.now();
  return row!.now.getTime() - (before + after) / 2;
}

export function segmentStore(db: Db, runId: string) {
  const where = (index: number) => ({ runId_index: { runId, index } });
  return {
    /** Fresh rows for `count` segments (an earlier attempt's are replaced). */
    create: async (count: number) => {
      await db.$transaction([
        db.runSegment.deleteMany({ where: { runId } }),
        db.runSegment.createMany({ data: Array.from({ length: count }, (_, index) => ({ runId, index, count })) }),
        db.run.update({ where: { id: runId }, data: { generators: count } }),
      ]);
    },

    /** QUEUED -> STARTING for this worker, only if no other took it (a job delivered twice runs once). */
    claim: async (index: number, worker: string, clockOffsetStartMs: number) => {
      const r = await db.runSegment.updateMany({
        where: { runId, index, status: "QUEUED" },
        data: { status: "STARTING", worker, clockOffsetStartMs },
      });
      return r.count === 1;
    },

    setStatus: (index: number, status: SegmentStatus, data: Omit<Prisma.RunSegmentUpdateInput, "status" | "run"> = {}) =>
      db.runSegment.update({ where: where(index), data: { status, ...data } }),

    /** What the generator measured once its k6 ended (FINISHED or FAILED). */
    finish: (
      index: number,
      r: {
        status: "FINISHED" | "FAILED";
        exitCode: number;
        cpuPercent: number | null;
        k6Summary: unknown;
        k6Clock: { startMs: number; lastMs: number } | null;
        clockOffsetEndMs: number | null;
        error: string | null;
      },
    ) => {
      const summary = r.k6Summary == null ? null : readStoredJson(k6SummarySchema, r.k6Summary);
      return db.runSegment.updateMany({
        // A segment already declared lost stays lost: its numbers stop where it was lost.
        where: { runId, index, status: { notIn: ["LOST", "CANCELLED"] } },
        data: {
          status: r.status,
          k6ExitCode: r.exitCode,
          cpuPercent: r.cpuPercent,
          k6Summary: summary === null ? Prisma.DbNull : jsonInput(k6SummarySchema, summary),
          k6StartMs: r.k6Clock?.startMs ?? null,
          k6LastMs: r.k6Clock?.lastMs ?? null,
          clockOffsetEndMs: r.clockOffsetEndMs,
          error: r.error,
          finishedAt: new Date(),
        },
      });
    },

    /** Marks segments that will never run or report (lost, or cancelled before they started), unless already final. */
    markGone: (indexes: number[], status: "LOST" | "CANCELLED", error: string) =>
      db.runSegment.updateMany({
        where: { runId, index: { in: indexes }, status: { notIn: [...FINAL_SEGMENT_STATUSES] } },
        data: { status, error, ...(status === "LOST" ? { lostAt: new Date() } : { finishedAt: new Date() }) },
      }),

    list: async () => {
      const rows = await db.runSegment.findMany({ where: { runId }, orderBy: { index: "asc" } });
      return rows.map((r) => ({
        ...r,
        status: r.status as SegmentStatus,
        k6Summary: readStoredJson(k6SummarySchema, r.k6Summary),
        thresholds: readStoredJson(thresholdSourcesSchema, r.thresholds),
      }));
    },

    /** Requests each segment stored (result_seconds), by segment index. */
    requestsBySegment: async (): Promise<Map<number, number>> => {
      const groups = await db.resultSecond.groupBy({ by: ["segment"], where: { runId }, _sum: { requests: true } });
      return new Map(groups.map((g) => [g.segment, g._sum.requests ?? 0]));
    },
  };
}
export type SegmentStore = ReturnType<typeof segmentStore>;
export type RunSegmentRow = Awaited<ReturnType<SegmentStore["list"]>>[number];

/** Each generator of a run on several: its segment, status, CPU and the requests it stored (its share of the run's). */
export async function generatorTotals(db: Db, runId: string): Promise<GeneratorTotals[]> {
  const store = segmentStore(db, runId);
  const [rows, requests] = await Promise.all([store.list(), store.requestsBySegment()]);
  return rows.map((r) => ({
    segment: r.index,
    count: r.count,
    status: r.status,
    worker: r.worker,
    cpuPercent: r.cpuPercent,
    requests: requests.get(r.index) ?? 0,
    lostAt: r.lostAt?.toISOString() ?? null,
    clockOffsetMs: { start: r.clockOffsetStartMs, end: r.clockOffsetEndMs },
  }));
}
