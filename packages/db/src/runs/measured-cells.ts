// A run's cells as its numbers are taken from them: after its study's warm-up (core's runs/measured-cells.ts).
import { afterWarmup, type ResultCell } from "@opsbench/core";
import type { Db } from "../client";
import { loadResultCells } from "./result-cells";

/** The warm-up of a run (its study's warmupSeconds; 0 for a run outside a study) and its load start. */
export async function runWarmup(db: Db, runId: string): Promise<{ warmupSeconds: number; loadStartedAt: Date | null }> {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { loadStartedAt: true, study: { select: { warmupSeconds: true } } },
  });
  return { warmupSeconds: run.study?.warmupSeconds ?? 0, loadStartedAt: run.loadStartedAt };
}

/**
 * The run's stored cells after its warm-up, with the warm-up and the load start they were cut at (the run's
 * recorded load start, else its first cell's second). Summaries, rollups (so verdicts and tables) read these.
 */
export async function loadMeasuredCells(
  db: Db,
  runId: string,
): Promise<{ cells: ResultCell[]; all: ResultCell[]; warmupSeconds: number; loadStart: Date | null }> {
  const [{ warmupSeconds, loadStartedAt }, all] = await Promise.all([runWarmup(db, runId), loadResultCells(db, runId)]);
  const loadStart = loadStartedAt ?? all[0]?.ts ?? null;
  return { cells: loadStart ? afterWarmup(all, loadStart, warmupSeconds) : all, all, warmupSeconds, loadStart };
}
