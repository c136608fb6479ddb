// A study as its page, its API and the CLI show it: every cell (target x
// workload) with its runs, the spread across repetitions (mean +- SD and the
// 95% CI of each metric) and the merged result of its histograms; progress and ETA.
import {
  describeSample,
  MIN_REPETITIONS,
  mergeRepetitions,
  plannedSeconds,
  readFlags,
  studyProgress,
  workloadSpec,
  type RunSummary,
  type SampleStats,
  type StudyProgress,
  type ValidityFlag,
} from "@opsbench/core";
import type { Db } from "./client";
import { loadResultCells } from "./run-view";
import type { StudyCell } from "./study-store";

/** The metrics whose spread across repetitions a cell shows. */
export const STUDY_METRICS = ["rps", "p50", "p95", "p99", "goodput", "failures"] as const;
export type StudyMetric = (typeof STUDY_METRICS)[number];

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
  result: { requests: number; failures: number; goodput: number; rps: number; p50: number; p95: number; p99: number } | null;
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
const FINAL = ["SUCCEEDED", "FAILED", "ABORTED"];

function plannedLoadSeconds(spec: unknown): number {
  const parsed = workloadSpec.safeParse(spec);
  if (!parsed.success) return 0;
  try {
    return plannedSeconds(parsed.data);
  } catch {
    return 0;
  }
}

/** Callers check workspace access first (workspace-scope.ts). `merged: false` skips loading histograms (for progress polling). */
export async function loadStudyView(db: Db, studyId: string, opts: { merged?: boolean; now?: Date } = {}): Promise<StudyView> {
  const study = await db.study.findUniqueOrThrow({
    where: { id: studyId },
    include: {
      runs: {
        orderBy: [{ position: "asc" }, { repetition: "asc" }, { createdAt: "asc" }],
        include: { target: { select: { name: true, kind: true } }, workload: { select: { name: true } } },
      },
    },
  });
  // Studies made before cells were recorded (single-cell ones) derive them from their runs.
  let cells = (Array.isArray(study.cells) ? study.cells : []) as unknown as StudyCell[];
  if (cells.length === 0) {
    const seen = new Map<string, StudyCell>();
    for (const r of study.runs) {
      const key = `${r.targetId}/${r.workloadId}`;
      if (!seen.has(key))
        seen.set(key, {
          targetId: r.targetId ?? "",
          target: r.target?.name ?? "?",
          workloadId: r.workloadId ?? "",
          workload: r.workload?.name ?? "?",
        });
    }
    cells = [...seen.values()];
  }
  const cellOf = (r: { targetId: string | null; workloadId: string | null }) =>
    cells.findIndex((c) => c.targetId === (r.targetId ?? "") && c.workloadId === (r.workloadId ?? ""));

  const runs: StudyRunView[] = study.runs.map((r) => {
    const s = r.summary as unknown as RunSummary | null;
    return {
      id: r.id,
      cell: cellOf(r),
      status: r.status,
      repetition: r.repetition,
      round: r.round,
      position: r.position,
      flags: readFlags(r.flags),
      error: r.error,
      startedAt: iso(r.startedAt),
      finishedAt: iso(r.finishedAt),
      result:
        s && r.status === "SUCCEEDED"
          ? {
              requests: s.requests,
              failures: s.failures,
              goodput: s.goodput,
              rps: s.rps,
              p50: s.latencyMs.p50,
              p95: s.latencyMs.p95,
              p99: s.latencyMs.p99,
            }
          : null,
    };
  });

  const cellViews: StudyCellView[] = [];
  for (const [index, c] of cells.entries()) {
    const cellRuns = runs.filter((r) => r.cell === index).sort((a, b) => a.repetition - b.repetition);
    const ok = cellRuns.filter((r) => r.result);
    const stats = Object.fromEntries(STUDY_METRICS.map((m) => [m, describeSample(ok.map((r) => r.result![m]))])) as Record<
      StudyMetric,
      SampleStats
    >;
    let merged: RunSummary | null = null;
    if (opts.merged !== false && ok.length) {
      const reps = [];
      for (const r of ok) {
        const row = study.runs.find((x) => x.id === r.id)!;
        reps.push({ cells: await loadResultCells(db, r.id), durationSeconds: (row.summary as unknown as RunSummary).durationSeconds });
      }
      merged = mergeRepetitions(reps);
    }
    const kind = study.runs.find((r) => cellOf(r) === index)?.target?.kind ?? null;
    const flags: ValidityFlag[] = [];
    if (FINAL.includes(study.status) && ok.length < MIN_REPETITIONS) {
      flags.push({
        code: "too-few-repetitions",
        message: `${ok.length} succeeded repetition${ok.length === 1 ? "" : "s"} (fewer than ${MIN_REPETITIONS}): the spread says little`,
      });
    }
    cellViews.push({
      index,
      target: { id: c.targetId, name: c.target, kind },
      workload: { id: c.workloadId, name: c.workload },
      runs: cellRuns,
      stats,
      merged,
      flags,
    });
  }

  const studyFinal = FINAL.includes(study.status);
  const progress = studyProgress(
    study.runs.map((r) => ({
      status: r.status,
      plannedSeconds: plannedLoadSeconds(r.workloadSpec),
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
    })),
    { cooldownSeconds: study.cooldownSeconds, studyFinal, now: opts.now ?? new Date() },
  );
  const current = runs.find((r) => !FINAL.includes(r.status) && r.status !== "QUEUED") ?? null;

  return {
    id: study.id,
    name: study.name,
    status: study.status,
    order: study.runOrder,
    seed: study.seed,
    repetitions: study.repetitions,
    cooldownSeconds: study.cooldownSeconds,
    baselineWaitSeconds: study.baselineWaitSeconds,
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
