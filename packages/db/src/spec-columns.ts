// The columns a target, a workload, and a run's copies of both are written with,
// each checked against its schema (core's stored-json.ts) on the way in.
import { targetSnapshotSchema, targetSpecs, workloadSpec, type TargetInput, type WorkloadSpec } from "@opsbench/core";
import { jsonInputOfUnknown, jsonInput } from "./json-column";

export const targetColumns = (t: Pick<TargetInput, "kind" | "spec">) => ({
  kind: t.kind,
  spec: jsonInputOfUnknown(targetSpecs[t.kind], t.spec),
});

export const workloadColumns = (spec: WorkloadSpec) => ({ kind: spec.kind, spec: jsonInput(workloadSpec, spec) });

/** A run's copies of its target and workload as they are now (later edits do not change what the run ran). */
export const runSpecColumns = (target: { kind: string; spec: unknown }, workload: { spec: unknown }) => ({
  targetSpec: jsonInput(targetSnapshotSchema, { kind: target.kind, spec: target.spec }),
  workloadSpec: jsonInputOfUnknown(workloadSpec, workload.spec),
});
