// A run row's JSON columns, parsed once as they leave the database: flags, the
// target and workload copied when it was made, its summary and k6's. A value that
// does not match its schema reads as null (flags: none), so one bad row cannot break a page.
import {
  k6SummarySchema,
  readFlags,
  readStoredJson,
  runSummarySchema,
  targetSnapshotSchema,
  workloadSpec,
  type K6Summary,
  type RunSummary,
  type TargetSnapshot,
  type ValidityFlag,
  type WorkloadSpec,
} from "@opsbench/core";

export interface RunJson {
  flags: ValidityFlag[];
  targetSpec: TargetSnapshot | null;
  workloadSpec: WorkloadSpec | null;
  summary: RunSummary | null;
  k6Summary: K6Summary | null;
}

type RunJsonColumns = { [K in keyof RunJson]: unknown };

/** The row with its JSON columns parsed. */
export type ParsedRun<R extends RunJsonColumns> = Omit<R, keyof RunJson> & RunJson;

export function parseRunJson<R extends RunJsonColumns>(row: R): ParsedRun<R> {
  const { flags, targetSpec, workloadSpec: workload, summary, k6Summary, ...rest } = row;
  return {
    ...rest,
    flags: readFlags(flags),
    targetSpec: readStoredJson(targetSnapshotSchema, targetSpec),
    workloadSpec: readStoredJson(workloadSpec, workload),
    summary: readStoredJson(runSummarySchema, summary),
    k6Summary: readStoredJson(k6SummarySchema, k6Summary),
  };
}

/** Just the summary, for queries that select only it. */
export const readRunSummary = (json: unknown): RunSummary | null => readStoredJson(runSummarySchema, json);
