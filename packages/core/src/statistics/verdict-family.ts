// A comparison's verdicts as one family (verdict-method.ts): Holm's correction, and what the family says as a whole.
import { fmt, verdictText, withMargin } from "./verdict-text";
import type { GroupVerdict, VerdictOptions } from "./verdict-types";

/** A verdict Holm's correction counts: the primary metric's, between configurations, with a test. */
const inFamily = (v: GroupVerdict) => v.role === "primary" && v.scope === "between-configurations" && v.pValue !== null;

/**
 * Holm's step-down correction over a family of verdicts (the primary metric's between configurations with an
 * interval): each keeps its interval; a claim, "better" or "equivalent", stands only where its Holm-adjusted p is
 * below 1 - level, and the detectable difference, power and runs needed are those of the family's Holm level.
 * Descriptive, within-run and "no verdict" entries are not tested and not counted.
 */
export function applyFamily(
  verdicts: readonly GroupVerdict[],
  family: string,
  opts: (v: GroupVerdict) => Pick<VerdictOptions, "unit" | "lowerIsBetter">,
): GroupVerdict[] {
  const m = verdicts.filter(inFamily).length;
  // Decided again with the family's size: its power and detectable difference are the Holm level's.
  const sized = verdicts.map((v) => (inFamily(v) ? withMargin({ ...v, family, familySize: m }, v.margin, opts(v)) : v));
  const tested = sized
    .map((v, i) => ({ v, i }))
    .filter(({ v }) => inFamily(v))
    .sort((x, y) => x.v.pValue! - y.v.pValue!);
  const adjusted = new Map<number, number>();
  let running = 0;
  tested.forEach(({ v, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * v.pValue!));
    adjusted.set(i, running);
  });
  return sized.map((v, i) => {
    const adj = adjusted.get(i);
    if (adj === undefined) return { ...v, family, familySize: m };
    const beyond = v.outcome === "candidate-better" || v.outcome === "baseline-better";
    const claimed = beyond || v.outcome === "equivalent";
    const kept = claimed && adj < 1 - v.level;
    // A claim that holds alone but not after the correction: inconclusive (the text says which way it leaned).
    const out: GroupVerdict = {
      ...v,
      family,
      familySize: m,
      adjustedPValue: adj,
      significant: beyond && kept,
      outcome: claimed && !kept ? "inconclusive" : v.outcome,
    };
    return { ...out, text: verdictText(out, opts(v)) };
  });
}

export interface FamilySummary {
  family: string | null;
  /** Verdicts tested (between configurations, with an interval). */
  tested: number;
  /** Significant after Holm's correction. */
  significant: number;
  /** Beyond the margin at the verdict's own level, before the correction. */
  uncorrected: number;
  /** m x alpha: how many would be "significant" by chance alone, uncorrected, if nothing differed. */
  expectedByChance: number;
  withinRun: number;
  /** Verdicts on the other metrics: intervals shown, never significant. */
  descriptive: number;
  text: string;
}

/** "k of m significant, about m x alpha expected by chance": what a family of verdicts says as a whole. */
export function familySummary(verdicts: readonly GroupVerdict[]): FamilySummary {
  const tested = verdicts.filter(inFamily);
  const alpha = 1 - (tested[0]?.level ?? 0.95);
  const significant = tested.filter((v) => v.significant).length;
  const uncorrected = tested.filter((v) => v.outcome === "candidate-better" || v.outcome === "baseline-better").length;
  const withinRun = verdicts.filter((v) => v.role === "primary" && v.scope === "within-run" && v.method !== "none").length;
  const descriptive = verdicts.filter((v) => v.role === "descriptive" && v.method !== "none").length;
  const m = tested.length;
  const family = verdicts.find((v) => v.family)?.family ?? null;
  const parts = [
    m
      ? `${significant} of ${m} significant after Holm's correction (${uncorrected} before it; about ${fmt(m * alpha)} would be by chance alone if nothing differed)`
      : "no verdict between configurations",
  ];
  if (withinRun) parts.push(`${withinRun} within-run (single runs; never significant)`);
  if (descriptive) parts.push(`${descriptive} descriptive (other metrics; never significant)`);
  return {
    family,
    tested: m,
    significant,
    uncorrected,
    expectedByChance: m * alpha,
    withinRun,
    descriptive,
    text: `${family ? `${family}: ` : ""}${parts.join("; ")}`,
  };
}
