// Regression gates (`opsbench compare --fail-on "p95 > +10%"`, issue 24): a rule on one verdict of the verdict
// engine (compare/, statistics/verdict-method.ts). Thin on purpose: the engine gives the interval of the change
// (a difference, or a ratio); a rule fails only when the whole interval is beyond its limit, passes when the whole
// interval is within it, and is inconclusive otherwise (that does not fail a build unless asked). A verdict is read
// with its scope: a "within-run" one (one run a side, no stated run-to-run CV) says what two runs showed, not what
// two configurations do, so every rule on it is inconclusive (issue 34: read as repetitions, identical
// configurations failed "p95 > +10%" in about 18% of builds at 10% run-to-run variance).
import { METRIC_CATALOG, type MetricCatalog } from "../metrics/metric-catalog";

export type GateUnit = "%" | "pp" | "abs";

export interface GateRule {
  /** As written, e.g. "p95 > +10%". */
  text: string;
  /** What the rule is about: the verdict's metric (p50, req/s, ...), or the negated alias it named (goodput). */
  metric: string;
  /** The verdict the rule reads (the catalog's key: goodput reads the failure share). */
  verdictMetric: string;
  /** The verdict is read with its sign turned (goodput -1pp is failure share +1pp). */
  negated: boolean;
  /** ">": fails when the change is above the limit (a rise is bad); "<": below it. */
  op: ">" | "<";
  limit: number;
  /** "%": relative to the baseline; "pp": percentage points (shares); "abs": in the metric's own unit (ms, req/s). */
  unit: GateUnit;
}

/** Every name `--fail-on` accepts, from the catalog's gate aliases. */
export function gateAliases(catalog: MetricCatalog = METRIC_CATALOG) {
  return catalog.flatMap((m) => m.gate.map((g) => ({ alias: g.alias, negated: g.negated === true, metric: m })));
}

/** Parses "p95 > +10%", "goodput < -1pp", "p99 > +20ms", "rps < -5%"; throws a message naming what is wrong. */
export function parseGateRule(text: string, catalog: MetricCatalog = METRIC_CATALOG): GateRule {
  const m = /^\s*([a-z0-9/_.-]+)\s*([<>])\s*([+-]?\d+(?:\.\d+)?)\s*(%|pp|ms|req\/s)?\s*$/i.exec(text);
  if (!m) throw new Error(`--fail-on "${text}": expected METRIC > +N% (or < -N%, Npp, Nms), e.g. "p95 > +10%" or "goodput < -1pp"`);
  const aliases = gateAliases(catalog);
  const found = aliases.find((a) => a.alias === m[1]!.toLowerCase());
  if (!found) throw new Error(`--fail-on "${text}": unknown metric "${m[1]}" (known: ${aliases.map((a) => a.alias).join(", ")})`);
  const name = found.negated ? found.alias : found.metric.key;
  const share = found.metric.kind === "share";
  const unit: GateUnit = m[4] === "%" ? "%" : m[4] === "pp" ? "pp" : "abs";
  const shares = aliases.filter((a) => a.metric.kind === "share").map((a) => a.alias);
  if (unit === "pp" && !share) throw new Error(`--fail-on "${text}": percentage points (pp) are for ${shares.join(", ")}`);
  // A share's relative change ("+50%": 1% -> 1.5% failures) reads the share itself; goodput (100 - share) moves by
  // a fraction of a percent whatever happens to the failures, so it stays in points.
  if (unit === "%" && share && found.negated)
    throw new Error(`--fail-on "${text}": ${name} is judged in percentage points, e.g. "${found.alias} < -1pp"`);
  return {
    text: text.trim(),
    metric: name,
    verdictMetric: found.metric.key,
    negated: found.negated,
    op: m[2] as ">" | "<",
    limit: Number(m[3]) / (unit === "%" ? 100 : 1),
    unit,
  };
}

/** What the gate reads of a verdict (the engine's MetricVerdict has more). */
export interface GateVerdict {
  metric: string;
  /**
   * "difference" (b - a), "ratio" (b / a) or "log-odds" (a failure share: estimate/low/high are odds ratios
   * candidate/baseline, baselineMean the baseline's share in %).
   */
  scale: "difference" | "ratio" | "log-odds";
  /** "within-run": one run a side without a stated run-to-run CV; every rule on it is inconclusive. */
  scope: "between-configurations" | "within-run";
  estimate: number | null;
  low: number | null;
  high: number | null;
  level: number;
  baselineMean: number | null;
  text: string;
}

export type GateOutcome = "fail" | "pass" | "inconclusive" | "no-verdict";

export interface GateResult {
  rule: GateRule;
  outcome: GateOutcome;
  /** The change and its interval in the rule's unit (null without a verdict). */
  change: { estimate: number; low: number; high: number } | null;
  /** In words, for the log, JUnit and the step summary. */
  message: string;
}

/** What a rule on a within-run verdict says instead of a pass or a fail. */
export const WITHIN_RUN_REASON = "one run a side: state --run-cv or use --baseline-runs N";

/**
 * A failure share's odds ratio (candidate/baseline) in the rule's unit, given the baseline's share in %: the
 * candidate's share is the baseline's odds times the ratio, back to a share; "pp" is its difference in points, "%"
 * its change relative to the baseline's share. Monotone in the ratio, so an interval's ends map to the interval's
 * ends. Null when the baseline's share is 0% or 100% (no odds to scale).
 */
function oddsRatioInRuleUnit(oddsRatio: number, baselinePercent: number | null, unit: GateUnit): number | null {
  if (baselinePercent === null || !(baselinePercent > 0 && baselinePercent < 100)) return null;
  const p0 = baselinePercent / 100;
  const odds = (oddsRatio * p0) / (1 - p0);
  const p1 = odds / (1 + odds);
  return unit === "%" ? p1 / p0 - 1 : (p1 - p0) * 100;
}

/** The change's interval in the rule's unit: relative (0.1 = +10%) or absolute (points for a share). */
function inRuleUnit(v: GateVerdict, unit: GateUnit): { estimate: number; low: number; high: number } | null {
  if (v.estimate === null || v.low === null || v.high === null) return null;
  const base = v.baselineMean;
  const convert = (x: number): number | null => {
    if (v.scale === "log-odds") return oddsRatioInRuleUnit(x, base, unit);
    if (v.scale === "ratio") return unit === "%" ? x - 1 : base === null ? null : (x - 1) * base;
    return unit === "%" ? (base ? x / base : null) : x;
  };
  const [estimate, low, high] = [convert(v.estimate), convert(v.low), convert(v.high)];
  return estimate === null || low === null || high === null ? null : { estimate, low, high };
}

const shown = (x: number, unit: GateUnit) =>
  unit === "%" ? `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%` : `${x >= 0 ? "+" : ""}${x.toFixed(2)}${unit === "pp" ? "pp" : ""}`;

/**
 * The verdict a rule reads: one named as the rule is (a server that judged goodput itself), else the catalog's
 * verdict, a negated alias only in points (goodput -1pp is failure share +1pp; a log-odds verdict converts to them).
 */
function verdictFor(rule: GateRule, verdicts: readonly GateVerdict[]): { v: GateVerdict; negated: boolean } | null {
  const direct = verdicts.find((x) => x.metric === rule.metric);
  if (direct) return { v: direct, negated: false };
  const v = rule.negated ? verdicts.find((x) => x.metric === rule.verdictMetric) : undefined;
  return v && v.scale !== "ratio" ? { v, negated: true } : null;
}

export function evaluateGateRule(rule: GateRule, verdicts: readonly GateVerdict[]): GateResult {
  const found = verdictFor(rule, verdicts);
  if (!found) return { rule, outcome: "no-verdict", change: null, message: `no verdict on ${rule.metric} in the comparison` };
  const { v, negated } = found;
  const inUnit = inRuleUnit(v, rule.unit);
  const change = inUnit && negated ? { estimate: -inUnit.estimate, low: -inUnit.high, high: -inUnit.low } : inUnit;
  if (!change) return { rule, outcome: "no-verdict", change: null, message: v.text };
  const interval = `${shown(change.estimate, rule.unit)} (${Math.round(v.level * 100)}% interval ${shown(change.low, rule.unit)} to ${shown(change.high, rule.unit)})`;
  if (v.scope === "within-run")
    return {
      rule,
      outcome: "inconclusive",
      change,
      message: `${rule.metric} changed ${interval} within the two runs; "${rule.text}" inconclusive: ${WITHIN_RUN_REASON}`,
    };
  const beyond = rule.op === ">" ? change.low > rule.limit : change.high < rule.limit;
  const within = rule.op === ">" ? change.high <= rule.limit : change.low >= rule.limit;
  const outcome: GateOutcome = beyond ? "fail" : within ? "pass" : "inconclusive";
  const verdictWord = {
    fail: "fails: the whole interval is beyond the limit",
    pass: "holds",
    inconclusive: "inconclusive: the interval crosses the limit",
  }[outcome];
  return { rule, outcome, change, message: `${rule.metric} changed ${interval}; "${rule.text}" ${verdictWord}` };
}
