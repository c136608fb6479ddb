// Whether a run found its target's limit (core's runs/saturation.ts), from its measured cells and
// its per-second load rows, both after the run's warm-up: capacity is read only from runs that did.
import { afterWarmup, mergeLoadSeconds, runSaturation, type Saturation } from "@opsbench/core";
import type { Db } from "../client";
import { loadMeasuredCells } from "./measured-cells";

/** One run's saturation. */
export async function loadRunSaturation(db: Db, runId: string): Promise<Saturation> {
  const [{ cells, warmupSeconds, loadStart }, rows] = await Promise.all([
    loadMeasuredCells(db, runId),
    db.loadSecond.findMany({ where: { runId }, orderBy: { ts: "asc" } }),
  ]);
  const load = mergeLoadSeconds(rows);
  // The load rows are cut where the cells were; the steps then count from the measured window's start.
  const from = loadStart ? new Date(Math.floor(loadStart.getTime() / 1000) * 1000 + warmupSeconds * 1000) : null;
  return runSaturation(cells, from ? afterWarmup(load, from, 0) : load, from);
}

/** Several runs' saturations, by run id (one run at a time: a comparison holds a few runs). */
export async function loadRunSaturations(db: Db, runIds: readonly string[]): Promise<Map<string, Saturation>> {
  const out = new Map<string, Saturation>();
  for (const id of new Set(runIds)) out.set(id, await loadRunSaturation(db, id));
  return out;
}
