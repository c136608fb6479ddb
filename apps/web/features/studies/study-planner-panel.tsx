"use client";

// The study planner in the study form: before launch, the chance the study's
// verdicts find a stated difference, and the repetitions a side that would find it
// 80% of the time, computed in the browser by core's planStudy under the rule the
// comparison applies (the margin, Holm's correction over the primary metric's
// family: one verdict per workload and target against the workload's first).
import type { StudyPlanAnswer } from "@opsbench/api";
import { DEFAULT_EFFECT, DEFAULT_EQUIVALENCE_MARGIN, METRIC_CATALOG, planStudy, type StudyPlan } from "@opsbench/core";
import { useEffect, useState } from "react";
import { inputClass } from "@/components/form-field";

/** The run-to-run CV assumed until the user states one (or earlier runs measure one). */
const DEFAULT_RUN_CV_PERCENT = 5;

const percentOf = (fraction: number) => String(Math.round(fraction * 1000) / 10);

/** A percent box's value as a fraction, or a message naming what is wrong. */
function fractionOf(label: string, raw: string, max: number): number | string {
  const x = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(x)) return `${label}: give a number of percent`;
  if (x < 0 || x >= max) return `${label}: must be at least 0% and below ${max}%, not ${raw}%`;
  return x / 100;
}

/** The metrics a study may judge as its primary one (the descriptive-only ones cannot). */
const PRIMARY_CHOICES = METRIC_CATALOG.filter((m) => !m.descriptiveOnly);

/**
 * The primary metric's run-to-run CV measured from earlier runs of these targets x workloads (GET /api/v1/studies/plan),
 * or null when there are none; refetched as the choice changes.
 */
function useEarlierRunCv(targets: readonly string[], workloads: readonly string[], primaryMetric: string) {
  const [measured, setMeasured] = useState<StudyPlanAnswer["cv"] | null>(null);
  const query = new URLSearchParams({ targets: targets.join(","), workloads: workloads.join(","), primary: primaryMetric }).toString();
  useEffect(() => {
    if (!targets.length || !workloads.length) return setMeasured(null);
    const abort = new AbortController();
    fetch(`/api/v1/studies/plan?${query}`, { signal: abort.signal })
      .then((r) => (r.ok ? (r.json() as Promise<StudyPlanAnswer>) : null))
      .then((a) => setMeasured(a && a.cv.source === "earlier-runs" ? a.cv : null))
      .catch(() => undefined);
    return () => abort.abort();
  }, [query, targets.length, workloads.length]);
  return measured;
}

export function StudyPlannerPanel({
  targets: targetNames,
  workloads: workloadNames,
  repetitions,
  primaryMetric,
  onPrimaryMetric,
}: {
  targets: readonly string[];
  workloads: readonly string[];
  repetitions: number;
  primaryMetric: string;
  onPrimaryMetric: (key: string) => void;
}) {
  const [targets, workloads] = [targetNames.length, workloadNames.length];
  const [margin, setMargin] = useState(percentOf(DEFAULT_EQUIVALENCE_MARGIN));
  const [effect, setEffect] = useState(percentOf(DEFAULT_EFFECT));
  const [cvTyped, setCv] = useState<string | null>(null);
  const measured = useEarlierRunCv(targetNames, workloadNames, primaryMetric);
  // The user's CV once typed; else the one earlier runs measured; else the assumed 5%.
  const cv = cvTyped ?? (measured ? percentOf(measured.value) : String(DEFAULT_RUN_CV_PERCENT));
  const cvHint =
    cvTyped !== null
      ? "%, as you stated"
      : measured
        ? `%, measured from ${measured.cells.reduce((n, c) => n + c.runs, 0)} earlier runs of ${measured.cells.length} target x workload cell${measured.cells.length === 1 ? "" : "s"}`
        : "%, assumed 5 (no earlier runs of these targets x workloads)";
  const familySize = workloads * Math.max(0, targets - 1);
  const inputs = [fractionOf("margin", margin, 100), fractionOf("effect", effect, 1000), fractionOf("run-to-run CV", cv, 100)];
  const bad = inputs.find((x): x is string => typeof x === "string");
  let plan: StudyPlan | null = null;
  let why: string | null = bad ?? null;
  if (!why && targets < 2) why = "pick two targets or more: the verdicts compare targets within each workload";
  else if (!why && workloads < 1) why = "pick a workload";
  else if (!why && !(Number.isInteger(repetitions) && repetitions >= 2))
    why = "two repetitions or more give a run-to-run spread to judge by";
  if (!why) {
    const [m, e, c] = inputs as number[];
    try {
      plan = planStudy({ repetitions, cv: c!, margin: m!, effect: e!, familySize });
    } catch (err) {
      why = err instanceof RangeError ? err.message : String(err);
    }
  }
  const weak = plan !== null && plan.power < 0.8;
  const box = (id: string, label: string, value: string, set: (v: string) => void, hint: string) => (
    <label htmlFor={id} className="flex max-w-64 flex-col gap-0.5 text-2xs text-zinc-600">
      <span className="font-medium">{label}</span>
      <input
        id={id}
        data-testid={id}
        type="number"
        min={0}
        step={0.5}
        value={value}
        onChange={(ev) => set(ev.target.value)}
        className={`${inputClass.replace("w-full", "w-24")}`}
      />
      <span className="text-zinc-400">{hint}</span>
    </label>
  );
  return (
    <section
      data-testid="study-planner"
      data-power={plan?.power ?? undefined}
      data-repetitions-needed={plan?.repetitionsNeeded ?? undefined}
      data-family-size={familySize}
      className={`rounded-md border px-3 py-2 ${weak ? "border-amber-300 bg-amber-50" : "border-zinc-200 bg-zinc-50"}`}
    >
      <h3 className="text-xs font-medium text-zinc-700">
        Planner: can this study find the difference you care about in its primary metric?
      </h3>
      <div className="mt-2 flex flex-wrap items-start gap-4">
        {box("plan-margin", "Margin (±%)", margin, setMargin, "default 5; differences inside it count as none")}
        {box("plan-effect", "Effect to find (%)", effect, setEffect, "default 10; the true difference that matters")}
        {box("plan-cv", "run-to-run CV (from earlier runs when there are some)", cv, setCv, cvHint)}
        <label htmlFor="plan-primary" className="flex max-w-64 flex-col gap-0.5 text-2xs text-zinc-600">
          <span className="font-medium">Primary metric</span>
          <select
            id="plan-primary"
            data-testid="plan-primary"
            value={primaryMetric}
            onChange={(ev) => onPrimaryMetric(ev.target.value)}
            className={inputClass.replace("w-full", "w-40")}
          >
            {PRIMARY_CHOICES.map((m) => (
              <option key={m.key} value={m.key}>
                {m.label}
              </option>
            ))}
          </select>
          <span className="text-zinc-400">the verdicts&apos; family; the rest are descriptive</span>
        </label>
      </div>
      <p data-testid="study-planner-line" className={`mt-2 text-xs ${weak ? "font-medium text-amber-800" : "text-zinc-700"}`}>
        {plan ? plan.text : why}
      </p>
      {plan && (
        <p className="mt-0.5 text-2xs text-zinc-500">
          Family: {workloads} workload{workloads === 1 ? "" : "s"} × ({targets} targets − 1) = {familySize} verdict
          {familySize === 1 ? "" : "s"} under Holm&apos;s correction.
          {weak && (
            <span data-testid="study-planner-warning" className="ml-1 text-amber-800">
              Below 80%: a real difference of this size would most often come out inconclusive
              {plan.repetitionsNeeded !== null ? `; ${plan.repetitionsNeeded} repetitions would do` : ""}.
            </span>
          )}
        </p>
      )}
    </section>
  );
}
