// A study: targets x workloads x repetitions, in a recorded run order, with a
// cool-down between runs and a baseline check before each (docs/studies.md).
// The same shape is the body of POST /api/v1/studies and a `study run` file.
import { z } from "zod";
import { targetName } from "../targets/local-specs";
import { targetInput } from "../kinds/target-schemas";
import { workloadInput } from "../workloads/workload-spec";
import { MAX_SEED } from "./study-order";
import { factorLevels, studyFactors, type StudyFactors } from "./study-factors";
import { METRIC_CATALOG } from "../metrics/metric-catalog";

/** A metric a comparison or study may judge as its primary one: a compared metric that is not descriptive only. */
const primaryMetricKeys = METRIC_CATALOG.filter((m) => !m.descriptiveOnly).map((m) => m.key);
export const primaryMetricKey = z.string().refine((k) => primaryMetricKeys.includes(k), {
  message: `expected one of: ${primaryMetricKeys.join(", ")}`,
});

export const STUDY_ORDERS = ["interleaved-random", "sequential"] as const;
export type StudyOrder = (typeof STUDY_ORDERS)[number];

/** More runs than this in one study is almost certainly a mistake (and a week of machine time). */
export const MAX_STUDY_RUNS = 500;

// Workload names follow the same rule as target names.
const workloadName = targetName;

export const studyInput = z
  .object({
    name: z.string().trim().min(1).max(100),
    /** Names of existing targets, or full definitions (created, or replacing the one of that name). */
    targets: z
      .array(z.union([targetName, targetInput]))
      .min(1)
      .max(20),
    workloads: z
      .array(z.union([workloadName, workloadInput]))
      .min(1)
      .max(20),
    repetitions: z.number().int().min(1).max(100).default(3),
    order: z.enum(STUDY_ORDERS).default("interleaved-random"),
    /** Seed of the run order; drawn at random and recorded when not given. */
    seed: z.number().int().min(0).max(MAX_SEED).optional(),
    /** Pause between runs, so the machine and the target settle (the IoT study used 15-30 min). */
    cooldownSeconds: z.number().int().min(0).max(86_400).default(60),
    /** How long the baseline check may wait for the target to be back at its minimum before the run goes ahead, flagged. */
    baselineWaitSeconds: z.number().int().min(0).max(3600).default(120),
    /** Factors besides target x workload: each level makes a variant of every target (<target>.r5...). */
    factors: studyFactors.optional(),
    /** Seconds from each run's load start left out of its summary, verdicts and tables (the warm-up). */
    warmupSeconds: z.number().int().min(0).max(86_400).optional(),
    /** The metric the study's verdicts judge in their family (default p95 of successful responses); the rest are descriptive. */
    primaryMetric: primaryMetricKey.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const dupes = (names: string[], key: "targets" | "workloads") =>
      names.forEach((n, i) => {
        if (names.indexOf(n) !== i) ctx.addIssue({ code: "custom", path: [key, i], message: `"${n}" is listed twice` });
      });
    dupes(s.targets.map(refName), "targets");
    dupes(s.workloads.map(refName), "workloads");
    const runs = studyRunCount(s);
    if (runs > MAX_STUDY_RUNS) {
      ctx.addIssue({
        code: "custom",
        path: ["repetitions"],
        message: `${runs} runs (${studyRunProduct(s)}); at most ${MAX_STUDY_RUNS}`,
      });
    }
  });
export type StudyInput = z.infer<typeof studyInput>;
/** The input as written, before defaults (what a study file may leave out). */
export type StudyInputDraft = z.input<typeof studyInput>;

/** The name a target or workload reference stands for. */
export const refName = (ref: string | { name: string }) => (typeof ref === "string" ? ref : ref.name);

/** Runs a study makes: targets x factor levels x workloads x repetitions. */
export const studyRunCount = (s: { targets: unknown[]; workloads: unknown[]; repetitions: number; factors?: StudyFactors }) =>
  s.targets.length * factorLevels(s.factors).length * s.workloads.length * s.repetitions;

/** How studyRunCount multiplied, in words (for the message that refuses too many). */
export const studyRunProduct = (s: { factors?: StudyFactors }) =>
  s.factors ? "targets x factor levels x workloads x repetitions" : "targets x workloads x repetitions";
