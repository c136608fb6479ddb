// A run's cells as its numbers are taken from them: those of its analysis window, after its warm-up
// (core's runs/measured-cells.ts and windows/analysis-window.ts). The warm-up is decided once, when the
// run is analysed or imported (stated by its study, else detected by MSER-5) and kept in its summary;
// every reader after that (rollups, so verdicts; study views and tables; the zoom; cost) cuts there.
import {
  afterWarmup,
  decidedWarmupSeconds,
  readStoredJson,
  runSummarySchema,
  warmupOfCells,
  type ResultCell,
  type Warmup,
} from "@opsbench/core";
import type { Db } from "../client";
import { loadResultCells } from "./result-cells";

/** The warm-up every reader cuts a run at (its study's stated one, else its summary's) and its load start. */
export async function runWarmup(
  db: Db,
  runId: string,
): Promise<{ warmupSeconds: number; statedSeconds: number; loadStartedAt: Date | null }> {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { loadStartedAt: true, summary: true, study: { select: { warmupSeconds: true } } },
  });
  const stated = run.study?.warmupSeconds ?? 0;
  return {
    warmupSeconds: decidedWarmupSeconds(stated, readStoredJson(runSummarySchema, run.summary)),
    statedSeconds: stated,
    loadStartedAt: run.loadStartedAt,
  };
}

/**
 * The run's stored cells after its warm-up, with the warm-up and the load start they were cut at (the run's
 * recorded load start, else its first cell's second). Summaries, rollups (so verdicts and tables) read these.
 * `decide`: when analysing, decide the warm-up afresh from the cells (stated, else MSER-5, up to `loadEndMs`)
 * instead of reading the one the summary keeps; `warmup` says how it was decided.
 */
export async function loadMeasuredCells(
  db: Db,
  runId: string,
  opts: { decide?: { loadEndMs?: number } } = {},
): Promise<{ cells: ResultCell[]; all: ResultCell[]; warmupSeconds: number; loadStart: Date | null; warmup: Warmup | null }> {
  const [{ warmupSeconds: stored, statedSeconds, loadStartedAt }, all] = await Promise.all([
    runWarmup(db, runId),
    loadResultCells(db, runId),
  ]);
  const loadStart = loadStartedAt ?? all[0]?.ts ?? null;
  if (!loadStart) return { cells: all, all, warmupSeconds: 0, loadStart, warmup: null };
  const warmup = opts.decide ? warmupOfCells(all, loadStart, statedSeconds, opts.decide.loadEndMs) : null;
  const warmupSeconds = warmup ? warmup.seconds : stored;
  return { cells: afterWarmup(all, loadStart, warmupSeconds), all, warmupSeconds, loadStart, warmup };
}
