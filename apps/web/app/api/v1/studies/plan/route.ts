import { ASSUMED_RUN_CV_PERCENT, type StudyPlanAnswer, studyPlanQuery } from "@opsbench/api";
import { planStudy } from "@opsbench/core";
import { NextResponse } from "next/server";
import { apiRoute, parseInput } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The study planner: GET /api/v1/studies/plan?repetitions=6&targets=a,b&workloads=w&primary=p95&margin=5&effect=10[&cv=8]
 * answers the chance the study's verdicts find a true `effect` difference in the primary metric, and the repetitions
 * that would find it 80% of the time, under the rule the comparison applies (margin, Holm over the primary metric's
 * pairs: workloads x (targets - 1)). The run-to-run CV is the one given, else measured from earlier succeeded runs
 * of the same targets x workloads, else assumed (5%), and the answer says which.
 */
export const GET = apiRoute(async ({ request, scope }) => {
  const q = new URL(request.url).searchParams;
  const input = parseInput(studyPlanQuery, Object.fromEntries([...q.entries()].filter(([, v]) => v !== "")));
  const earlier =
    input.cv === undefined && input.targets.length && input.workloads.length
      ? await scope.studies.earlierRunCv({ targets: input.targets, workloads: input.workloads, metric: input.primary })
      : { cv: null, cells: [] };
  const cv =
    input.cv !== undefined
      ? { value: input.cv / 100, source: "stated" as const, cells: [] }
      : earlier.cv !== null
        ? { value: earlier.cv, source: "earlier-runs" as const, cells: earlier.cells }
        : { value: ASSUMED_RUN_CV_PERCENT / 100, source: "assumed" as const, cells: [] };
  const familySize = Math.max(1, Math.max(1, input.workloads.length) * (Math.max(1, input.targets.length) - 1));
  const plan = planStudy({
    repetitions: input.repetitions,
    cv: Math.min(cv.value, 0.99),
    margin: input.margin / 100,
    effect: input.effect / 100,
    familySize,
  });
  const answer: StudyPlanAnswer = {
    repetitions: plan.repetitions,
    primaryMetric: input.primary,
    familySize,
    margin: plan.margin,
    effect: plan.effect,
    cv,
    power: plan.power,
    repetitionsNeeded: plan.repetitionsNeeded,
    detectable: plan.detectable,
    text: `${plan.text} CV ${cv.source === "stated" ? "as stated" : cv.source === "earlier-runs" ? `from earlier runs of ${cv.cells.length} target x workload cell${cv.cells.length === 1 ? "" : "s"}` : "assumed (no earlier runs to measure it from)"}.`,
  };
  return NextResponse.json(answer, { headers: { "cache-control": "no-store" } });
});
