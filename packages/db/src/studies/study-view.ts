// A study as its page, its API and the CLI show it: every cell (target x
// workload) with its runs, the spread across repetitions (mean +- SD and the
// 95% CI of each metric) and the merged result of its histograms; progress and ETA.
import {
  afterWarmup,
  cellFlags,
  decidedWarmupSeconds,
  cellIndexOf,
  cellsFromRuns,
  cellStats,
  isFinalStudyStatus,
  isRunInProgress,
  mergeRepetitions,
  plannedLoadSeconds,
  studyProgress,
  studyRunResult,
  type ResultCell,
  type RunSummary,
  type SampleStats,
  type StudyMetric,
  type StudyProgress,
  type StudyRunResult,
  type ValidityFlag,
} from "@opsbench/core";
import type { Db } from "../client";
import { loadResultCellsOfRuns } from "../runs/result-cells";
import { parseStudyWithRuns } from "./study-json";

export interface StudyRunView {
  id: string;
  cell: number;
  status: string;
  repetition: number;
  round: number | null;
  position: number | null;
  flags: ValidityFlag[];
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** The run's own figures, once analysed. */
  result: StudyRunResult | null;
}

export interface StudyCellView {
  index: number;
  target: { id: string; name: string; kind: string | null };
  workload: { id: string; name: string };
  /** By repetition. */
  runs: StudyRunView[];
  /** Over the cell's succeeded runs; SD and CI need two of them. */
  stats: Record<StudyMetric, SampleStats>;
  /** All succeeded repetitions' histograms merged (null until one has succeeded, or when not loaded). */
  merged: RunSummary | null;
  flags: ValidityFlag[];
}

export interface StudyView {
  id: string;
  name: string;
  status: string;
  order: string;
  seed: number | null;
  repetitions: number;
  cooldownSeconds: number;
  baselineWaitSeconds: number;
  /** Seconds from each run's load start left out of its summary, verdicts and tables. */
  warmupSeconds: number;
  /** The metric its verdicts judge in their family (null: p95). */
  primaryMetric: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  progress: StudyProgress & { current: { runId: string; position: number | null; cell: number; status: string } | null };
  cells: StudyCellView[];
  /** Every run in run order. */
  runs: StudyRunView[];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Callers check workspace access first (workspace-scope.ts). `merged: false` skips loading histograms (for progress polling). */
export async function loadStudyView(db: Db, studyId: string, opts: { merged?: boolean; now?: Date } = {}): Promise<StudyView> {
  const study = parseStudyWithRuns(
    await db.study.findUniqueOrThrow({
      where: { id: studyId },
      include: {
        runs: {
          orderBy: [{ position: "asc" }, { repetition: "asc" }, { createdAt: "asc" }],
          include: { target: { select: { name: true, kind: true } }, workload: { select: { name: true } } },
        },
      },
    }),
  );
  const cells = study.cells.length ? study.cells : cellsFromRuns(study.runs);
  const studyFinal = isFinalStudyStatus(study.status);

  const runs: StudyRunView[] = study.runs.map((r) => ({
    id: r.id,
    cell: cellIndexOf(cells, r),
    status: r.status,
    repetition: r.repetition,
    round: r.round,
    position: r.position,
    flags: r.flags,
    error: r.error,
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    result: studyRunResult(r),
  }));

  // Every succeeded run's histograms in one query (not one per run).
  const succeeded = study.runs.filter((r) => studyRunResult(r) !== null);
  const cellsOfRun =
    opts.merged === false
      ? new Map()
      : await loadResultCellsOfRuns(
          db,
          succeeded.map((r) => r.id),
        );

  // Each run's analysis window (after the study's warm-up, else the one detected when it was analysed), as its
  // summary and rollup count them.
  const measuredOf = (runId: string) => {
    const all: ResultCell[] = cellsOfRun.get(runId) ?? [];
    const run = succeeded.find((x) => x.id === runId);
    const start = run?.loadStartedAt ?? all[0]?.ts;
    return start ? afterWarmup(all, start, decidedWarmupSeconds(study.warmupSeconds, run?.summary ?? null)) : all;
  };
  const cellViews: StudyCellView[] = cells.map((c, index) => {
    const cellRuns = runs.filter((r) => r.cell === index).sort((a, b) => a.repetition - b.repetition);
    const ok = cellRuns.flatMap((r) => (r.result ? [{ run: r, result: r.result }] : []));
    const reps = ok.map(({ run }) => ({
      cells: measuredOf(run.id),
      durationSeconds: succeeded.find((x) => x.id === run.id)?.summary?.durationSeconds ?? 0,
    }));
    return {
      index,
      target: { id: c.targetId, name: c.target, kind: study.runs.find((r) => cellIndexOf(cells, r) === index)?.target?.kind ?? null },
      workload: { id: c.workloadId, name: c.workload },
      runs: cellRuns,
      stats: cellStats(ok.map((o) => o.result)),
      merged: opts.merged !== false && reps.length ? mergeRepetitions(reps) : null,
      flags: cellFlags(ok.length, studyFinal),
    };
  });

  const progress = studyProgress(
    study.runs.map((r) => ({
      status: r.status,
      plannedSeconds: plannedLoadSeconds(r.workloadSpec),
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
    })),
    { cooldownSeconds: study.cooldownSeconds, studyFinal, now: opts.now ?? new Date() },
  );
  const current = runs.find((r) => isRunInProgress(r.status)) ?? null;

  return {
    id: study.id,
    name: study.name,
    status: study.status,
    order: study.runOrder,
    seed: study.seed,
    repetitions: study.repetitions,
    cooldownSeconds: study.cooldownSeconds,
    baselineWaitSeconds: study.baselineWaitSeconds,
    warmupSeconds: study.warmupSeconds,
    primaryMetric: study.primaryMetric,
    createdAt: study.createdAt.toISOString(),
    startedAt: iso(study.startedAt),
    finishedAt: iso(study.finishedAt),
    error: study.error,
    progress: {
      ...progress,
      current: current ? { runId: current.id, position: current.position, cell: current.cell, status: current.status } : null,
    },
    cells: cellViews,
    runs,
  };
}
