// Loads a comparison for a workspace: resolves a study into its cells, checks that
// every run belongs to the workspace, and prices each group where a cost is known
// (core's groupCost and breakEvenPairs). Server only: pages, route handlers and the
// public share loader all call it, so input it cannot use is a ZodError naming the
// place (a route answers it with a 422, a page shows its message), never an HTTP type.
import type { ComparisonInput } from "@opsbench/api";
import { breakEvenPairs, groupCapacity, groupCost, type Saturation } from "@opsbench/core";
import { NotFoundError, type ComparisonView, type WorkspaceScope } from "@opsbench/db";
import { z } from "zod";
import type { CompareData } from "./compare-data";

/** Input that is well-formed but names what is not there (or not yet usable). */
const badInput = (path: Array<string | number>, message: string) => new z.ZodError([{ code: "custom", path, message, input: undefined }]);

/** The study's cells as groups (one per target x workload), each with its succeeded runs. */
async function studyGroups(scope: WorkspaceScope, studyId: string) {
  const study = await scope.studies.view(studyId, { merged: false }).catch((err: unknown) => {
    if (err instanceof NotFoundError) throw badInput(["studyId"], `study "${studyId}" does not exist`);
    throw err;
  });
  const groups = study.cells
    .map((c) => ({
      label: `${c.target.name} x ${c.workload.name}`,
      runIds: c.runs.filter((r) => r.status === "SUCCEEDED").map((r) => r.id),
    }))
    .filter((g) => g.runIds.length > 0);
  if (groups.length === 0) throw badInput(["studyId"], `study "${study.name}" has no succeeded runs yet`);
  return { title: study.name, groups, primaryMetric: study.primaryMetric };
}

/**
 * Costs (per 1,000 successful requests) and break-even curves of the groups, from their runs' priced costs; a
 * serverful capacity only from the runs that saturated (read for the groups of a reserved-priced target only).
 */
async function costsOf(scope: WorkspaceScope, view: ComparisonView): Promise<Pick<CompareData, "costs" | "breakEvens">> {
  const firstCost = (g: ComparisonView["groups"][number]) => g.runs.map((r) => r.summary?.cost).find((c) => c != null) ?? null;
  const serverfulRuns = view.groups.filter((g) => firstCost(g)?.model.kind === "reserved").flatMap((g) => g.runs.map((r) => r.id));
  const saturations = serverfulRuns.length ? await scope.saturations(serverfulRuns) : new Map<string, Saturation>();
  return {
    costs: view.groups.map((g) => groupCost(g.runs.map((r) => r.summary?.cost))),
    breakEvens: breakEvenPairs(
      view.groups.map((g) => ({
        label: g.label,
        cost: firstCost(g),
        // Successful req/s: the rates the curves are drawn over are rates of requests served.
        rps: g.merged ? (g.merged.rps * g.merged.successRatio) / 100 : null,
        capacity: groupCapacity(
          g.runs.flatMap((r) => saturations.get(r.id) ?? []),
          g.merged?.maxThroughput?.rps ?? null,
        ),
        replicas: g.infra.map((p) => p.replicas),
      })),
    ),
  };
}

/** What a query may choose of the verdicts (fractions): a stated run-to-run CV, the primary metric, the effect, the failure margin. */
export interface VerdictQueryOptions {
  runToRunCv?: number;
  primaryMetric?: string;
  effect?: number;
  failureMargin?: number;
  /** A zoom: the comparison of the seconds [fromSeconds, toSeconds) of each run's analysis window only. */
  window?: { fromSeconds: number; toSeconds: number };
}

/**
 * `runToRunCv`: a stated run-to-run CV (fraction) that lets single runs be judged between configurations.
 * A study's verdicts compare targets within each workload (never across workloads), as one Holm family.
 */
export async function loadCompareData(scope: WorkspaceScope, input: ComparisonInput, opts: VerdictQueryOptions = {}): Promise<CompareData> {
  const { title, groups, primaryMetric } =
    "studyId" in input ? await studyGroups(scope, input.studyId) : { title: null, groups: input.groups, primaryMetric: null };
  let view: ComparisonView;
  try {
    view = await scope.compare(groups, {
      ...("studyId" in input ? { pairing: "within-workload" as const } : {}),
      // A study's own primary metric unless the query picks another.
      ...(primaryMetric ? { primaryMetric } : {}),
      ...opts,
      ...(input.includeFlagged ? { includeFlagged: true } : {}),
    });
  } catch (err) {
    // A run id that is not in this workspace is bad input, named at its place in the body.
    if (err instanceof NotFoundError && err.entity === "run") {
      const gi = groups.findIndex((g) => g.runIds.includes(err.key));
      throw badInput(
        gi >= 0 ? ["groups", gi, "runIds", groups[gi]!.runIds.indexOf(err.key)] : ["groups"],
        `run "${err.key}" does not exist`,
      );
    }
    throw err;
  }
  return { ...view, title, ...(await costsOf(scope, view)), generatedAt: new Date().toISOString() };
}
