// A study's tables (core's statistics/study-tables.ts) from its stored runs: each
// succeeded run's summary, its study-004 maximum throughput of the chosen request
// name (from its per-second rows), and its target's mean CPU over the load window
// (from its infra points, for study 002's weighted qps), its scaling duration and mean vCPUs (from the replica
// timeline and the run's copy of the target spec). Callers check workspace
// access first (workspace-scope.ts).
import {
  analysisStartMs,
  cellIndexOf,
  decidedWarmupSeconds,
  cellsFromRuns,
  meanCpuPercent,
  meanVcpus,
  scalingDuration,
  studyMaxThroughput,
  vcpuPerReplica,
  studyTableCells,
  type StudyTableCell,
  type StudyTableRun,
} from "@opsbench/core";
import type { Db } from "../client";
import { parseStudyWithRuns } from "./study-json";

export interface StudyTablesView {
  id: string;
  name: string;
  status: string;
  repetitions: number;
  /** Request names seen in the study's runs (what maximum throughput may be taken of). */
  requestNames: string[];
  /** The request name maximum throughput is of; null: all requests. */
  requestName: string | null;
  cells: StudyTableCell[];
}

export async function loadStudyTables(db: Db, studyId: string, opts: { requestName?: string | null } = {}): Promise<StudyTablesView> {
  const study = parseStudyWithRuns(
    await db.study.findUniqueOrThrow({
      where: { id: studyId },
      include: {
        runs: {
          orderBy: [{ position: "asc" }, { repetition: "asc" }, { createdAt: "asc" }],
          include: { target: { select: { name: true } }, workload: { select: { name: true } } },
        },
      },
    }),
  );
  const cells = study.cells.length ? study.cells : cellsFromRuns(study.runs);
  const succeeded = study.runs.filter((r) => r.status === "SUCCEEDED" && r.summary !== null);
  const ids = succeeded.map((r) => r.id);
  // Only what the two definitions need: counts per second x name x class, and CPU per infra point.
  const [rows, infra] = await Promise.all([
    db.resultSecond.findMany({ where: { runId: { in: ids } }, select: { runId: true, ts: true, name: true, class: true, requests: true } }),
    db.infraPoint.findMany({ where: { runId: { in: ids } }, select: { runId: true, ts: true, cpuPercent: true, replicas: true } }),
  ]);
  const requestNames = [...new Set(rows.map((r) => r.name))].sort();
  const requestName = opts.requestName && requestNames.includes(opts.requestName) ? opts.requestName : null;

  const tableRun = (run: (typeof succeeded)[number]): StudyTableRun => {
    const start = run.loadStartedAt ?? new Date(0);
    // The run's analysis window (after its warm-up), as its summary's req/s: maximum throughput, CPU and vCPUs over it.
    const measuredFrom = new Date(analysisStartMs(start, decidedWarmupSeconds(study.warmupSeconds, run.summary)));
    const seconds = rows
      .filter((r) => r.runId === run.id && r.ts.getTime() >= measuredFrom.getTime())
      .map((r) => ({ ts: r.ts, name: r.name, class: r.class, count: r.requests }));
    const max = studyMaxThroughput(seconds, requestName === null ? {} : { requestName });
    const points = infra.filter((p) => p.runId === run.id);
    const end = run.loadFinishedAt ?? new Date(8.64e15);
    // Study 002's scaling duration (from the load start: scaling out is what the warm-up may hold) and study 004's
    // throughput per vCPU, from the replica timeline and the run's copy of the spec.
    const scaling = scalingDuration(points, start, end);
    const vcpus = run.targetSpec ? vcpuPerReplica(run.targetSpec.kind, run.targetSpec.spec) : null;
    return {
      runId: run.id,
      summary: run.summary!,
      maxThroughputRps: max?.rps ?? null,
      cpuPercent: meanCpuPercent(points, measuredFrom, end),
      scaling: scaling && { seconds: scaling.seconds, maxReplicas: scaling.maxReplicas },
      meanVcpus: meanVcpus(points, measuredFrom, end, vcpus),
    };
  };

  return {
    id: study.id,
    name: study.name,
    status: study.status,
    repetitions: study.repetitions,
    requestNames,
    requestName,
    cells: studyTableCells(
      cells.map((c, index) => ({
        target: c.target,
        workload: c.workload,
        runs: succeeded.filter((r) => cellIndexOf(cells, r) === index).map(tableRun),
      })),
    ),
  };
}
