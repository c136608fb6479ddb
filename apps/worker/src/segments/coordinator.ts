// The load step of a run on N generators, on the run's worker: N segment jobs on the "load" queue,
// a wait until every generator has k6 up and paused (or the ready deadline: the run fails and
// started segments are stopped), one start time agreed in Redis on the database server's clock,
// then a watch until every segment has finished or is lost (its alive key expired). A lost
// generator does not stop the others: the run ends partial and says which segment and when.
import {
  GENERATOR_CLOCK_SKEW_LIMIT_MS,
  generatorClockSkewFlag,
  lostGeneratorFlag,
  lostGeneratorPartialFlag,
  type ValidityFlag,
} from "@opsbench/core";
import { databaseClockOffsetMs, FINAL_SEGMENT_STATUSES, segmentStore, type RunSegmentRow } from "@opsbench/db";
import { enqueueSegments, removeWaitingSegments, segmentCoordination } from "@opsbench/jobs";
import { K6_THRESHOLDS_FAILED, type K6Result } from "@opsbench/jobs";
import type { RunContext } from "../pipeline/run-context";
import { RunFailure } from "../pipeline/run-failure";
import type { SegmentSettings } from "./segment-settings";

/** Between "all ready" and the start: enough for every generator to read the start and wait for it. */
const START_LEAD_MS = 1500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SegmentedLoad {
  result: K6Result;
  k6Clock: { startMs: number; lastMs: number } | null;
  flags: ValidityFlag[];
}

export async function runSegmentedLoad(ctx: RunContext, count: number, settings: SegmentSettings): Promise<SegmentedLoad> {
  const { runId, signal, store } = ctx;
  const segments = segmentStore(ctx.deps.db, runId);
  const coordination = segmentCoordination(settings.redis, settings.redisUrl, runId);
  await coordination.clear(count);
  await segments.create(count);
  await enqueueSegments(settings.queue, runId, count, settings.host);
  await store.event("info", `load split over ${count} generators: segment jobs queued`);
  try {
    await waitForReady(ctx, count, settings, segments);
    const startDbMs = Date.now() + (await databaseClockOffsetMs(ctx.deps.db)) + START_LEAD_MS;
    await coordination.setStart(startDbMs);
    await store.event("info", `all ${count} generators ready; load starts at ${new Date(startDbMs).toISOString()} (database clock)`);
    const rows = await watchSegments(ctx, count, segments, coordination);
    return combine(rows, signal.aborted, startDbMs);
  } catch (err) {
    await coordination.cancel(err instanceof Error ? err.message : String(err));
    await removeWaitingSegments(settings.queue, runId, count);
    await segments.markGone(
      Array.from({ length: count }, (_, i) => i),
      "CANCELLED",
      "the run gave up before this segment finished",
    );
    throw err;
  }
}

async function waitForReady(ctx: RunContext, count: number, settings: SegmentSettings, segments: ReturnType<typeof segmentStore>) {
  const coordination = segmentCoordination(settings.redis, settings.redisUrl, ctx.runId);
  const until = Date.now() + settings.readyDeadlineMs;
  for (;;) {
    if (ctx.signal.aborted) throw new RunFailure("aborted while waiting for the load generators");
    if ((await coordination.readyCount()) >= count) return;
    // A generator that refused its segment (a loopback target on another host) or failed before k6 was up: the run
    // fails now, with its reason, rather than at the deadline.
    const failed = (await segments.list()).filter((s) => s.status === "FAILED");
    if (failed.length)
      throw new RunFailure(
        `${failed.map((s) => `load generator segment ${s.index + 1}/${count} (${s.worker ?? "no worker"}) failed before the start: ${s.error ?? "no reason"}`).join("; ")}; nothing was loaded, started segments were stopped`,
      );
    if (Date.now() > until) {
      const notReady = (await segments.list())
        .filter((s) => s.status !== "READY")
        .map((s) => `${s.index + 1}/${count} (${s.status.toLowerCase()})`);
      throw new RunFailure(
        `only ${count - notReady.length} of ${count} load generators were ready within ${Math.round(settings.readyDeadlineMs / 1000)} s (not ready: segment ${notReady.join(", ")}); are enough workers taking the "load" queue? Started segments were stopped`,
      );
    }
    await sleep(200);
  }
}

/** Until every segment is final: a segment whose alive key expired is lost (the others go on). */
async function watchSegments(
  ctx: RunContext,
  count: number,
  segments: ReturnType<typeof segmentStore>,
  coordination: ReturnType<typeof segmentCoordination>,
): Promise<RunSegmentRow[]> {
  let abortedAt: number | null = null;
  for (;;) {
    if (ctx.signal.aborted && abortedAt === null) {
      abortedAt = Date.now();
      await coordination.cancel("the run was aborted");
    }
    const rows = await segments.list();
    if (rows.every((r) => FINAL_SEGMENT_STATUSES.includes(r.status))) return rows;
    for (const r of rows) {
      if (FINAL_SEGMENT_STATUSES.includes(r.status) || (await coordination.alive(r.index))) continue;
      // Re-read: it may have finished between the list and the check.
      const lost = await segments.markGone([r.index], "LOST", "the load generator stopped reporting (its worker or machine was lost)");
      if (lost.count === 1) {
        ctx.log.warn({ segment: r.index, worker: r.worker }, "load generator lost");
        await ctx.store.event(
          "warn",
          `load generator segment ${r.index + 1}/${count} (${r.worker ?? "no worker"}) was lost; the others go on`,
        );
      }
    }
    if (abortedAt !== null && Date.now() - abortedAt > 60_000) return segments.list();
    await sleep(500);
  }
}

/** The generators' outcome as one k6 result, and the flags a reader needs (lost generators, clock skew). */
function combine(rows: RunSegmentRow[], aborted: boolean, startDbMs: number): SegmentedLoad {
  const failed = rows.filter((r) => r.status === "FAILED");
  if (failed.length && !aborted)
    throw new RunFailure(
      failed.map((r) => `load generator segment ${r.index + 1}/${r.count} failed: ${r.error ?? "no reason"}`).join("; "),
    );
  const finished = rows.filter((r) => r.status === "FINISHED");
  if (!finished.length && !aborted) throw new RunFailure("every load generator was lost");
  const flags: ValidityFlag[] = [];
  const lost = rows.filter((r) => r.status === "LOST");
  if (lost.length)
    flags.push(
      lostGeneratorFlag(lost.map((r) => ({ segment: r.index, count: r.count, lostAt: r.lostAt?.toISOString() ?? null }))),
      lostGeneratorPartialFlag(lost.length, rows.length),
    );
  const offsets = rows.flatMap((r) => [r.clockOffsetStartMs, r.clockOffsetEndMs]).filter((v): v is number => v !== null);
  if (offsets.length >= 2 && Math.max(...offsets) - Math.min(...offsets) > GENERATOR_CLOCK_SKEW_LIMIT_MS)
    flags.push(generatorClockSkewFlag(Math.max(...offsets) - Math.min(...offsets)));
  // The load window: from the agreed start (k6's own start includes the paused wait) to the latest last
  // sample, on k6's clocks corrected to the database server's.
  const lasts = finished.flatMap((r) => (r.k6LastMs !== null ? [r.k6LastMs + (r.clockOffsetStartMs ?? 0)] : []));
  const cpus = rows.map((r) => r.cpuPercent).filter((v): v is number => v !== null);
  return {
    result: {
      exitCode: finished.some((r) => r.k6ExitCode === K6_THRESHOLDS_FAILED) ? K6_THRESHOLDS_FAILED : 0,
      cpuPercentOfMachine: cpus.length ? Math.max(...cpus) : null,
      // Each generator's k6 summary covers its segment only; they are kept per segment (run_segments).
      summary: null,
      outputTail: "",
      malformedLines: 0,
      unsandboxed: null,
      deadlineExceeded: null,
      overLimits: null,
      resourceLimit: null,
      // handleSummary() files of a split run are each generator's own segment: not kept (docs/ci.md).
      artifacts: [],
      dropped: [],
    },
    k6Clock: lasts.length ? { startMs: startDbMs, lastMs: Math.max(...lasts) } : null,
    flags,
  };
}
