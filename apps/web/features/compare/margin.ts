// The practical-equivalence margin a comparison's verdicts use: `?margin=<percent>`
// (default 5). The intervals do not depend on it, so the verdicts loaded once are
// decided again under the user's margin (core's applyMargin), never recomputed.
import { applyMargin, DEFAULT_EQUIVALENCE_MARGIN } from "@opsbench/core";
import { z } from "zod";
import type { CompareData } from "./compare-data";

export const MARGIN_PARAM = "margin";
export const DEFAULT_MARGIN_PERCENT = DEFAULT_EQUIVALENCE_MARGIN * 100;

/** The query's margin, in percent of the baseline: 0 to 50 (absent: the default). */
export const marginPercentQuery = z.coerce
  .number({ message: "margin: expected a number (percent of the baseline, e.g. 5)" })
  .min(0, { message: "margin: must be at least 0 (percent)" })
  .max(50, { message: "margin: at most 50 (percent); a wider margin calls almost anything equivalent" })
  .optional();

type Query = URLSearchParams | Record<string, string | string[] | undefined>;

/** The margin the query asks for, as a fraction (0.05); the default with a message saying what is wrong when it cannot be used. */
export function marginFromQuery(q: Query): { margin: number; error: string | null } {
  const raw = q instanceof URLSearchParams ? (q.get(MARGIN_PARAM) ?? undefined) : [q[MARGIN_PARAM]].flat()[0];
  const parsed = marginPercentQuery.safeParse(raw === undefined || raw.trim() === "" ? undefined : raw);
  if (!parsed.success) return { margin: DEFAULT_EQUIVALENCE_MARGIN, error: parsed.error.issues[0]?.message ?? "margin: invalid" };
  return { margin: (parsed.data ?? DEFAULT_MARGIN_PERCENT) / 100, error: null };
}

/** The comparison with its verdicts decided under `margin` (a fraction). */
export const withVerdictMargin = (data: CompareData, margin: number): CompareData => ({
  ...data,
  verdicts: applyMargin(data.verdicts, margin),
});

/** The API's form: `{ margin }` of a query, in percent (parse with parseInput, so a bad one is a 422 naming "margin"). */
export const marginQuery = z.object({ [MARGIN_PARAM]: marginPercentQuery });

export const RUN_CV_PARAM = "runCv";

/** The query's stated run-to-run CV, percent: 0 to 50 (absent: none, so single runs are "within-run"). */
export const runCvPercentQuery = z.coerce
  .number({ message: "runCv: expected a number (the run-to-run coefficient of variation, percent, e.g. 5)" })
  .min(0, { message: "runCv: must be at least 0 (percent)" })
  .max(50, { message: "runCv: at most 50 (percent)" })
  .optional();

/** The stated run-to-run CV a query asks for, as a fraction (0.05), or undefined; with a message saying what is wrong when it cannot be used. */
export function runCvFromQuery(q: Query): { runToRunCv: number | undefined; error: string | null } {
  const raw = q instanceof URLSearchParams ? (q.get(RUN_CV_PARAM) ?? undefined) : [q[RUN_CV_PARAM]].flat()[0];
  const parsed = runCvPercentQuery.safeParse(raw === undefined || raw.trim() === "" ? undefined : raw);
  if (!parsed.success) return { runToRunCv: undefined, error: parsed.error.issues[0]?.message ?? "runCv: invalid" };
  return { runToRunCv: parsed.data === undefined ? undefined : parsed.data / 100, error: null };
}

/** The API's form: `{ runCv }` of a query, in percent (parse with parseInput, so a bad one is a 422 naming "runCv"). */
export const runCvQuery = z.object({ [RUN_CV_PARAM]: runCvPercentQuery });
