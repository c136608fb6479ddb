// The practical-equivalence margin a comparison's verdicts use: `?margin=<percent>`
// (default 5). The intervals do not depend on it, so the verdicts loaded once are
// decided again under the user's margin (core's applyMargin), never recomputed.
// The query's schemas are @opsbench/api's (the API parses the same ones).
import {
  DEFAULT_MARGIN_PERCENT,
  MARGIN_PARAM,
  marginPercentQuery,
  RUN_CV_PARAM,
  runCvPercentQuery,
  runCvQuery,
  verdictChoiceOptions,
  verdictChoicesQuery,
} from "@opsbench/api";
import { parseInput } from "@/lib/api/errors";
import type { VerdictQueryOptions } from "./load-compare-data";
import { applyMargin, DEFAULT_EQUIVALENCE_MARGIN } from "@opsbench/core";
import type { CompareData } from "./compare-data";

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
  verdicts: applyMargin(data.verdicts, { margin }),
});

/**
 * The API's verdict choices of a query (run-to-run CV, primary metric, effect, failure margin), as fractions; a bad
 * one is a 422 naming its parameter.
 */
export function verdictOptionsOfParams(params: URLSearchParams): VerdictQueryOptions {
  const { runCv } = parseInput(runCvQuery, { runCv: params.get(RUN_CV_PARAM) || undefined });
  const choices = parseInput(verdictChoicesQuery, {
    primary: params.get("primary") || undefined,
    effect: params.get("effect") || undefined,
    failureMargin: params.get("failureMargin") || undefined,
  });
  return { ...(runCv === undefined ? {} : { runToRunCv: runCv / 100 }), ...verdictChoiceOptions(choices) };
}

/** The page's verdict choices of a query (primary metric, effect, failure margin); a message instead of a 422 when one is wrong. */
export function verdictChoicesFromQuery(q: Query): { options: VerdictQueryOptions; error: string | null } {
  const one = (k: string) => (q instanceof URLSearchParams ? q.get(k) || undefined : [q[k]].flat()[0] || undefined);
  const parsed = verdictChoicesQuery.safeParse({ primary: one("primary"), effect: one("effect"), failureMargin: one("failureMargin") });
  if (!parsed.success) return { options: {}, error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
  return { options: verdictChoiceOptions(parsed.data), error: null };
}

/** The stated run-to-run CV a query asks for, as a fraction (0.05), or undefined; with a message saying what is wrong when it cannot be used. */
export function runCvFromQuery(q: Query): { runToRunCv: number | undefined; error: string | null } {
  const raw = q instanceof URLSearchParams ? (q.get(RUN_CV_PARAM) ?? undefined) : [q[RUN_CV_PARAM]].flat()[0];
  const parsed = runCvPercentQuery.safeParse(raw === undefined || raw.trim() === "" ? undefined : raw);
  if (!parsed.success) return { runToRunCv: undefined, error: parsed.error.issues[0]?.message ?? "runCv: invalid" };
  return { runToRunCv: parsed.data === undefined ? undefined : parsed.data / 100, error: null };
}
