// Validity flags on a run (runs.flags): added by the worker as it finds them.
import { mergeFlags, readFlags, validityFlags, type ValidityFlag } from "@opsbench/core";
import type { Db } from "../client";
import { jsonInput } from "../json-column";

/** Adds flags to a run, one per code. The worker writes a run from one place at a time, so read-then-write is safe. */
export async function addRunFlags(db: Db, runId: string, flags: readonly ValidityFlag[]): Promise<ValidityFlag[]> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { flags: true } });
  if (flags.length === 0) return readFlags(run.flags);
  const merged = mergeFlags(readFlags(run.flags), flags);
  await db.run.update({ where: { id: runId }, data: { flags: jsonInput(validityFlags, merged) } });
  return merged;
}

/** How many repetitions the run's cell has: the study's, or 1 for a run on its own. */
export async function plannedRepetitions(db: Db, runId: string): Promise<number> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { study: { select: { repetitions: true } } } });
  return run.study?.repetitions ?? 1;
}
