// A comparison's verdicts as one family (verdict-method.ts): Holm's correction, and what the family says as a whole.
import { fmt, verdictText } from "./verdict-text";
import type { GroupVerdict, VerdictOptions } from "./verdict-types";

/**
 * Holm's step-down correction over a family of verdicts (those between configurations with an interval): each keeps
 * its interval; `significant` stays only where the Holm-adjusted p is below 1 - level. Within-run verdicts and "no
 * verdict" entries are not tested and not counted.
 */
export function applyFamily(
  verdicts: readonly GroupVerdict[],
  family: string,
  opts: (v: GroupVerdict) => Pick<VerdictOptions, "unit" | "lowerIsBetter">,
): GroupVerdict[] {
  const tested = verdicts
    .map((v, i) => ({ v, i }))
    .filter(({ v }) => v.scope === "between-configurations" && v.pValue !== null)
    .sort((x, y) => x.v.pValue! - y.v.pValue!);
  const m = tested.length;
  const adjusted = new Map<number, number>();
  let running = 0;
  tested.forEach(({ v, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * v.pValue!));
    adjusted.set(i, running);
  });
  return verdicts.map((v, i) => {
    const adj = adjusted.get(i);
    if (adj === undefined) return { ...v, family, familySize: m };
    const beyond = v.outcome === "candidate-better" || v.outcome === "baseline-better";
    const kept = beyond && adj < 1 - v.level;
    // Beyond the margin alone but not after the correction: inconclusive (the text says which way it leaned).
    const out: GroupVerdict = {
      ...v,
      family,
      familySize: m,
      adjustedPValue: adj,
      significant: kept,
      outcome: beyond && !kept ? "inconclusive" : v.outcome,
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
  text: string;
}

/** "k of m significant, about m x alpha expected by chance": what a family of verdicts says as a whole. */
export function familySummary(verdicts: readonly GroupVerdict[]): FamilySummary {
  const tested = verdicts.filter((v) => v.scope === "between-configurations" && v.pValue !== null);
  const alpha = 1 - (tested[0]?.level ?? 0.95);
  const significant = tested.filter((v) => v.significant).length;
  const uncorrected = tested.filter((v) => v.outcome === "candidate-better" || v.outcome === "baseline-better").length;
  const withinRun = verdicts.filter((v) => v.scope === "within-run" && v.method !== "none").length;
  const m = tested.length;
  const family = verdicts.find((v) => v.family)?.family ?? null;
  const parts = [
    m
      ? `${significant} of ${m} significant after Holm's correction (${uncorrected} before it; about ${fmt(m * alpha)} would be by chance alone if nothing differed)`
      : "no verdict between configurations",
  ];
  if (withinRun) parts.push(`${withinRun} within-run (single runs; never significant)`);
  return {
    family,
    tested: m,
    significant,
    uncorrected,
    expectedByChance: m * alpha,
    withinRun,
    text: `${family ? `${family}: ` : ""}${parts.join("; ")}`,
  };
}
