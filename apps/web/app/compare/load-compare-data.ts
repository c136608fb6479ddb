// Loads a comparison for a workspace: resolves a study into its cells, checks that
// every run belongs to the workspace, and prices each group where a cost is known.
// Server only (pages, route handlers, the public share loader).
import { NotFoundError, type ComparisonView, type WorkspaceScope } from "@opsbench/db";
import { ApiError } from "@/lib/api/errors";
import { breakEven, breakEvenInput } from "@opsbench/core";
import type { BreakEvenPair, CompareData, GroupCost } from "./compare-data";
import type { ComparisonInput } from "./comparison-input";

/** The study's cells as groups (one per target x workload), each with its succeeded runs. */
async function studyGroups(scope: WorkspaceScope, studyId: string) {
  let study;
  try {
    study = await scope.studies.view(studyId, { merged: false });
  } catch (err) {
    if (err instanceof NotFoundError)
      throw new ApiError("invalid_input", `study "${studyId}" does not exist`, [{ path: "studyId", message: "no such study" }]);
    throw err;
  }
  const groups = study.cells
    .map((c) => ({
      label: `${c.target.name} x ${c.workload.name}`,
      runIds: c.runs.filter((r) => r.status === "SUCCEEDED").map((r) => r.id),
    }))
    .filter((g) => g.runIds.length > 0);
  if (groups.length === 0)
    throw new ApiError("invalid_input", `study "${study.name}" has no succeeded runs yet`, [
      { path: "studyId", message: "no succeeded runs yet" },
    ]);
  return { title: study.name, groups };
}

/**
 * A group's cost: the sum of its runs' priced totals (the worker prices each run
 * under its target's cost model) over all their requests, x 1000. Null when no run
 * of the group was priced (the target names no cost model).
 */
function costOfGroups(view: ComparisonView): Array<GroupCost | null> {
  return view.groups.map((g) => {
    const priced = g.runs.map((r) => r.summary?.cost).filter((c) => c != null);
    if (priced.length === 0) return null;
    const total = priced.reduce((sum, c) => sum + c.total, 0);
    const requests = priced.reduce((sum, c) => sum + (c.requests ?? 0), 0);
    return {
      unit: priced[0]!.unit,
      total,
      perThousandRequests: requests > 0 ? (total / requests) * 1000 : null,
      source: [...new Set(priced.map((c) => c.source))].join(", "),
    };
  });
}

/**
 * Break-even curves for every serverful (reserved) x serverless (request-billed)
 * pair of priced groups: cost per hour vs a steady request rate, with the serverful
 * side adding a replica per measured replica capacity (a staircase).
 */
function breakEvensOf(view: ComparisonView): BreakEvenPair[] {
  const priced = view.groups.map((g) => ({ g, cost: g.runs.map((r) => r.summary?.cost).find((c) => c != null) ?? null }));
  const out: BreakEvenPair[] = [];
  for (const sf of priced) {
    if (sf.cost?.model.kind !== "reserved" || !sf.g.merged?.maxThroughput) continue;
    const replicas = sf.g.infra.map((p) => p.replicas).filter((n) => n > 0);
    const meanReplicas = replicas.length ? replicas.reduce((a, b) => a + b, 0) / replicas.length : 1;
    const capacityPerNodeRps = sf.g.merged.maxThroughput.rps / meanReplicas;
    for (const sl of priced) {
      if (
        sl.cost?.model.kind !== "pay-per-use" ||
        sl.cost.model.billing !== "request" ||
        sl.cost.unit !== sf.cost.unit ||
        !(capacityPerNodeRps > 0)
      )
        continue;
      const input = breakEvenInput.safeParse({
        serverful: { model: sf.cost.model, capacityPerNodeRps, minNodes: Math.max(1, Math.min(...(replicas.length ? replicas : [1]))) },
        serverless: { model: sl.cost.model, meanBilledSeconds: sl.cost.meanBilledSeconds ?? 0 },
        maxRps: Math.max(capacityPerNodeRps * 4, (sl.g.merged?.rps ?? 0) * 2),
      });
      if (input.success) out.push({ serverful: sf.g.label, serverless: sl.g.label, capacityPerNodeRps, result: breakEven(input.data) });
    }
  }
  return out;
}

export async function loadCompareData(scope: WorkspaceScope, input: ComparisonInput): Promise<CompareData> {
  const { title, groups } = "studyId" in input ? await studyGroups(scope, input.studyId) : { title: null, groups: input.groups };
  let view: ComparisonView;
  try {
    view = await scope.compare(groups);
  } catch (err) {
    // A run id that is not in this workspace is bad input, named at its place in the body.
    if (err instanceof NotFoundError && err.entity === "run") {
      const gi = groups.findIndex((g) => g.runIds.includes(err.key));
      const path = gi >= 0 ? `groups.${gi}.runIds.${groups[gi]!.runIds.indexOf(err.key)}` : "groups";
      throw new ApiError("invalid_input", `${path}: run "${err.key}" does not exist`, [{ path, message: `no run "${err.key}"` }]);
    }
    throw err;
  }
  return {
    ...view,
    title,
    costs: costOfGroups(view),
    breakEvens: breakEvensOf(view),
    generatedAt: new Date().toISOString(),
  };
}
