// Loads a comparison for a workspace: resolves a study into its cells, checks that
// every run belongs to the workspace, and prices each group where a cost is known.
// Server only (pages, route handlers, the public share loader).
import { NotFoundError, type ComparisonView, type WorkspaceScope } from "@opsbench/db";
import { ApiError } from "@/lib/api/errors";
import type { CompareData, GroupCost } from "./compare-data";
import type { ComparisonInput } from "./comparison-input";

/** The study's cells as groups (one per target x workload), each with its succeeded runs. */
async function studyGroups(scope: WorkspaceScope, studyId: string) {
  let study;
  try {
    study = await scope.studies.view(studyId, { merged: false });
  } catch (err) {
    if (err instanceof NotFoundError) throw new ApiError("invalid_input", `study "${studyId}" does not exist`, [{ path: "studyId", message: "no such study" }]);
    throw err;
  }
  const groups = study.cells
    .map((c) => ({ label: `${c.target.name} x ${c.workload.name}`, runIds: c.runs.filter((r) => r.status === "SUCCEEDED").map((r) => r.id) }))
    .filter((g) => g.runIds.length > 0);
  if (groups.length === 0) throw new ApiError("invalid_input", `study "${study.name}" has no succeeded runs yet`, [{ path: "studyId", message: "no succeeded runs yet" }]);
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
    generatedAt: new Date().toISOString(),
  };
}
