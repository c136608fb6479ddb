// What a run's page shows around the run itself: where it belongs (its study), what its script aims at (a loopback
// address is the likely cause of a run without a successful request), and the runs of its target x workload to set
// it against (the marked baseline, else the one before it).
import {
  flagsOfRun,
  readFlags,
  readStoredJson,
  runSummarySchema,
  type RunSummary,
  scriptLoopbackHosts,
  type ValidityFlag,
  verdictExcludingFlags,
  workloadSpec,
} from "@opsbench/core";
import type { Db } from "../client";

/** A run as the baseline strip compares with it. */
export interface RunBrief {
  id: string;
  createdAt: string;
  summary: RunSummary;
  flags: ValidityFlag[];
}

export interface RunSurroundings {
  study: { id: string; name: string } | null;
  /** The loopback hosts the run's script names instead of __ENV.OPSBENCH_BASE_URL; empty for other workloads. */
  scriptLoopbackHosts: string[];
  /** The run marked as its target x workload's baseline, when that is another succeeded run. */
  baseline: RunBrief | null;
  /** The latest succeeded run of its target x workload created before it whose numbers are fit for a verdict. */
  previous: RunBrief | null;
}

const briefSelect = { id: true, createdAt: true, summary: true, flags: true } as const;

function brief(row: { id: string; createdAt: Date; summary: unknown; flags: unknown }): RunBrief | null {
  const summary = readStoredJson(runSummarySchema, row.summary);
  return summary
    ? { id: row.id, createdAt: row.createdAt.toISOString(), summary, flags: flagsOfRun({ flags: readFlags(row.flags), summary }) }
    : null;
}

/** How many earlier runs are looked through for one fit to compare with (flagged ones are passed over). */
const PREVIOUS_LOOKED_AT = 20;

/** Callers check workspace access first (runs-scope.ts). */
export async function loadRunSurroundings(db: Db, workspaceId: string, runId: string): Promise<RunSurroundings> {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { createdAt: true, targetId: true, workloadId: true, workloadSpec: true, study: { select: { id: true, name: true } } },
  });
  const spec = readStoredJson(workloadSpec, run.workloadSpec);
  const surroundings: RunSurroundings = {
    study: run.study,
    scriptLoopbackHosts: spec?.kind === "script" ? scriptLoopbackHosts(spec.source) : [],
    baseline: null,
    previous: null,
  };
  if (!run.targetId || !run.workloadId) return surroundings;
  const pair = { workspaceId, targetId: run.targetId, workloadId: run.workloadId };
  const marked = await db.baseline.findUnique({
    where: { workspaceId_targetId_workloadId: pair },
    select: { run: { select: { ...briefSelect, status: true } } },
  });
  if (marked && marked.run.id !== runId && marked.run.status === "SUCCEEDED") surroundings.baseline = brief(marked.run);
  const earlier = await db.run.findMany({
    where: { ...pair, status: "SUCCEEDED", createdAt: { lt: run.createdAt }, id: { not: runId } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: PREVIOUS_LOOKED_AT,
    select: briefSelect,
  });
  surroundings.previous = earlier.map(brief).find((b): b is RunBrief => b !== null && verdictExcludingFlags(b.flags).length === 0) ?? null;
  return surroundings;
}
