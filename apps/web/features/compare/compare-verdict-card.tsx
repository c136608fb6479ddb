"use client";

// The comparison's answer first (VerdictAnswerCard): per pair, one line each for latency (the primary metric),
// successful throughput, the failure share and cost per 1,000 successful requests, each with the winner, the
// relative difference, its interval and how sure in plain words; a confidence line (the runs, and what one more round
// would buy); and, in the app, "repeat" (one more run per group). Then the primary metric's verdict as a card
// (PrimaryVerdictCard: the outcome in words, the interval, the power line), which the study page shows too. All from
// the verdicts' own fields: the card judges nothing itself.
import {
  familySummary,
  type GroupCost,
  kindDefinition,
  type MetricVerdict,
  metricOf,
  powerWithMoreRuns,
  relativeDifference,
  type RunSummary,
} from "@opsbench/core";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { RoleGate } from "@/components/auth/role-gate";
import type { CompareData } from "@/features/compare/compare-data";
import { selectionToQuery } from "@/features/compare/selection";
import { fixed, fmtMoney } from "@/lib/format";

/** A relative amount as a percent: "10%", "2.5%". */
const pct = (x: number) => `${Number((x * 100).toFixed(Math.abs(x) < 0.1 ? 1 : 0))}%`;

/** The margin as the rows and the card say it: "±5%", "±50% of the odds", "±1 points". */
export function marginSaid(v: MetricVerdict): string {
  if (v.marginUnit === "points") return `±${v.margin} points`;
  return v.scale === "log-odds" ? `±${pct(v.margin)} of the odds` : `±${pct(v.margin)}`;
}

/** The stated effect and a detectable difference in the margin's unit. */
const amountSaid = (v: MetricVerdict, x: number) => (v.marginUnit === "points" ? `${x.toFixed(2)}-point` : pct(x));

/**
 * The power line: "With 3 vs 3 runs, this comparison finds a true 10% difference in p95 42% of the time; about 14 runs
 * a side would find it 80% of the time (80% from a 21% difference)". Within-run and "no verdict" say why there is none.
 */
export function powerLine(v: MetricVerdict): string {
  if (v.outcome === "no-verdict") return `no power to state: ${v.reason ?? "no interval"}`;
  if (v.scope === "within-run") return "one run a side: repeat the runs or state a run-to-run CV to judge configurations";
  const [a, b] = v.samples;
  const runs = v.basis === "seconds" ? "one run a side (widened by the stated run-to-run CV)" : `${a} vs ${b} runs`;
  const effect = amountSaid(v, v.effect);
  const found = v.power === null ? "" : ` ${Math.round(v.power * 100)}% of the time`;
  const needed =
    v.runsNeeded !== null
      ? `about ${v.runsNeeded} runs a side would find it 80% of the time`
      : v.effect <= v.margin
        ? `a ${effect} difference is within the ${marginSaid(v)} margin, never "better"`
        : "more than 1,000 runs a side would be needed for 80%";
  const detectable = v.detectable === null ? "" : ` (80% from a ${amountSaid(v, v.detectable)} difference)`;
  return `With ${runs}, this comparison finds a true ${effect} difference in ${v.metric}${found}; ${needed}${detectable}`;
}

/** The outcome in words, as the card heads it. */
export function outcomeSaid(v: MetricVerdict): string {
  const winner = v.outcome === "candidate-better" ? v.candidate : v.baseline;
  const margin = `the ${marginSaid(v)} margin`;
  switch (v.outcome) {
    case "no-verdict":
      return `no verdict on ${v.metric}: ${v.reason ?? "no interval"}`;
    case "candidate-better":
    case "baseline-better":
      if (v.scope === "within-run") return `within-run: ${winner}'s run was better on ${v.metric} beyond ${margin} (two single runs)`;
      return v.significant
        ? `${winner} is better on ${v.metric} beyond ${margin}`
        : `inconclusive on ${v.metric}: ${winner} better beyond ${margin} alone, not after Holm's correction`;
    case "equivalent":
      return `${v.scope === "within-run" ? "within-run: " : ""}equivalent on ${v.metric}: the interval lies within ${margin}`;
    default:
      return `${v.scope === "within-run" ? "within-run: " : ""}inconclusive on ${v.metric}: the interval spans ${margin}`;
  }
}

const signed = (x: number, digits: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}`;
const ratio = (x: number) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`;

/** The estimate and its interval in the verdict's scale: a difference in the metric's unit, or an odds ratio. */
export function intervalSaid(v: MetricVerdict): { estimate: string; interval: string } {
  if (v.estimate === null || v.low === null || v.high === null) return { estimate: "—", interval: "—" };
  if (v.scale !== "difference")
    return {
      estimate: `${v.scale === "log-odds" ? "odds ratio " : ""}${ratio(v.estimate)}`,
      interval: `[${ratio(v.low)}, ${ratio(v.high)}]`,
    };
  const unit = metricOf(v.metric)?.unit ?? "";
  const digits = unit === "req/s" ? 1 : 2;
  return { estimate: `${signed(v.estimate, digits)} ${unit}`, interval: `[${signed(v.low, digits)}, ${signed(v.high, digits)}] ${unit}` };
}

const toneOf = (v: MetricVerdict) =>
  v.significant
    ? "border-blue-300 bg-blue-50/60"
    : v.scope === "within-run" || v.outcome === "no-verdict"
      ? "border-amber-300 bg-amber-50/60"
      : "border-zinc-300 bg-zinc-50";

/** The primary metric's verdict for one pair. */
export function PrimaryVerdictCard({ v }: { v: MetricVerdict }) {
  const { estimate, interval } = intervalSaid(v);
  const weak = v.power !== null && v.power < 0.8;
  return (
    <div
      data-testid="cmp-primary-card"
      data-role="primary"
      data-metric={v.metric}
      data-candidate={v.candidate}
      data-baseline={v.baseline}
      data-outcome={v.outcome}
      data-significant={String(v.significant)}
      data-power={v.power ?? undefined}
      data-runs-needed={v.runsNeeded ?? undefined}
      className={`rounded-md border px-3 py-2 ${toneOf(v)}`}
    >
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <span className="text-2xs text-zinc-500">
          <span className="font-medium uppercase tracking-wide">primary · {v.metric}</span> · {v.candidate} vs {v.baseline}
        </span>
      </div>
      <p
        data-testid="cmp-primary-outcome"
        className={`mt-0.5 text-sm ${v.significant ? "font-semibold text-blue-800" : "font-medium text-zinc-800"}`}
      >
        {outcomeSaid(v)}
      </p>
      <p data-testid="cmp-primary-interval" className="mt-0.5 font-mono text-xs tabular-nums text-zinc-700">
        {v.candidate} − {v.baseline}: {estimate}, {Math.round(v.level * 100)}% CI {interval}
        {v.familySize > 1 ? ` · Holm over ${v.familySize}` : ""}
      </p>
      <p data-testid="cmp-power-line" className={`mt-1 text-xs ${weak || v.scope === "within-run" ? "text-amber-800" : "text-zinc-600"}`}>
        {powerLine(v)}
      </p>
    </div>
  );
}

type Group = CompareData["groups"][number];

/** A relative amount, signed: "+12.3%", "−4.0%". */
export const relativeSaid = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(Math.abs(x) < 10 ? 1 : 0)}%`;

/** A relative amount of relativeDifference: a percent, or on the odds a factor ("odds ×13.7", from an odds ratio less 1). */
export const relativeOfSaid = (x: number, of: "value" | "odds") =>
  of === "odds" ? `odds ×${(1 + x).toFixed(1 + x >= 10 ? 1 : 2)}` : relativeSaid(x);

/** A group's value of a metric as its verdict's point value is (successful responses first), from its merged result. */
export function observedOf(group: Group | undefined, metric: string): number | null {
  const m = metricOf(metric);
  const s: RunSummary | null | undefined = group?.merged;
  if (!m || !s) return null;
  const v = m.ofRun(s);
  return Number.isFinite(v) ? v : null;
}

/** The observed difference relative to the baseline (the candidate's value / the baseline's, less 1); null without both, or at a baseline of 0. */
export function observedRelative(baseline: number | null, candidate: number | null): number | null {
  return baseline === null || candidate === null || baseline === 0 ? null : candidate / baseline - 1;
}

/** Whether each side of a pair is a single run: then there is no run-to-run spread, only what the two runs showed. */
const singleRunsOf = (data: CompareData, v: MetricVerdict) =>
  [v.baseline, v.candidate].every((label) => data.groups.find((g) => g.label === label)?.runs.length === 1);

/** Why a single run a side is no verdict, and what would give one. */
export const SINGLE_RUN_WHY =
  "one run a side has no run-to-run spread to judge by; 2 or more runs a side, or a stated run-to-run CV (--run-cv, the run-to-run CV field), give a verdict";

interface AnswerLine {
  key: string;
  label: string;
  observed: string;
  relative: string;
  interval: string;
  winner: string;
  sure: string;
  /** "significant" | "equivalent" | "inconclusive" | "descriptive" | "observed" | "unpriced" */
  tone: string;
}

const valueSaid = (metric: string, x: number | null) => {
  const m = metricOf(metric);
  const unit = m?.unit ?? "";
  return x === null ? "—" : `${fixed(x, m?.decimals ?? 2)}${unit === "%" ? "%" : ` ${unit}`}`.trim();
};

/** A metric's line: from its verdict when there is an interval, else what was observed, labelled as such. */
function metricLine(data: CompareData, v: MetricVerdict, label: string): AnswerLine {
  const g = (l: string) => data.groups.find((x) => x.label === l);
  const [a, b] = [observedOf(g(v.baseline), v.metric), observedOf(g(v.candidate), v.metric)];
  const observed = `${valueSaid(v.metric, a)} → ${valueSaid(v.metric, b)}`;
  const lower = metricOf(v.metric)?.lowerIsBetter ?? true;
  const rel = relativeDifference(v);
  const seen = observedRelative(a, b);
  const ahead = seen === null || seen === 0 ? null : seen < 0 === lower ? v.candidate : v.baseline;
  const margin = marginSaid(v);
  if (!rel || v.scope === "within-run" || v.outcome === "no-verdict") {
    const single = v.scope === "within-run" || singleRunsOf(data, v);
    return {
      key: v.metric,
      label,
      observed,
      relative: seen === null ? "—" : `${relativeSaid(seen)} observed`,
      interval:
        rel && v.scope === "within-run" ? `within-run ${relativeOfSaid(rel.low, rel.of)} to ${relativeOfSaid(rel.high, rel.of)}` : "—",
      winner: ahead ? `${ahead} ${lower ? "lower" : "higher"} (observed, not a verdict)` : "no difference observed",
      sure: single ? "observed, not a verdict (one run a side)" : `no verdict: ${v.reason ?? "no interval"}`,
      tone: "observed",
    };
  }
  const interval = `${Math.round(v.level * 100)}% CI ${relativeOfSaid(rel.low, rel.of)} to ${relativeOfSaid(rel.high, rel.of)}`;
  const better = v.outcome === "candidate-better" ? v.candidate : v.outcome === "baseline-better" ? v.baseline : null;
  let winner: string;
  let sure: string;
  let tone: string;
  if (v.role === "descriptive") {
    tone = "descriptive";
    winner = better ? `${better} ahead` : v.outcome === "equivalent" ? "same within the margin" : "no clear leader";
    sure =
      v.outcome === "equivalent"
        ? `descriptive: the interval lies within ${margin}`
        : better
          ? `descriptive: the interval lies beyond ${margin} (not the primary question, never "significant")`
          : `descriptive: the interval reaches inside ${margin}; not sure`;
  } else if (v.significant) {
    tone = "significant";
    winner = `${better} is better`;
    sure = `significant: the whole interval lies beyond ${margin}${v.familySize > 1 ? `, after Holm's correction over ${v.familySize}` : ""}`;
  } else if (v.outcome === "equivalent") {
    tone = "equivalent";
    winner = "neither: equivalent";
    sure = `equivalent: the whole interval lies within ${margin}`;
  } else {
    tone = "inconclusive";
    winner = ahead ? `no winner yet (${ahead} ${lower ? "lower" : "higher"} so far)` : "no winner yet";
    sure = better
      ? `inconclusive: beyond ${margin} alone, not after Holm's correction`
      : `inconclusive: the interval reaches inside ${margin}; more runs would settle it`;
  }
  return { key: v.metric, label, observed, relative: relativeOfSaid(rel.estimate, rel.of), interval, winner, sure, tone };
}

const moneySaid = (c: GroupCost | null | undefined) =>
  c?.perThousandSuccessfulRequests == null ? "not priced" : fmtMoney(c.perThousandSuccessfulRequests, c.unit);

/** Cost per 1,000 successful requests: measured totals, no interval; a side without a price is never "the more expensive". */
function costLine(data: CompareData, v: MetricVerdict): AnswerLine {
  const idx = (l: string) => data.groups.findIndex((g) => g.label === l);
  const [ca, cb] = [data.costs[idx(v.baseline)], data.costs[idx(v.candidate)]];
  const [a, b] = [ca?.perThousandSuccessfulRequests ?? null, cb?.perThousandSuccessfulRequests ?? null];
  const base = {
    key: "cost",
    label: "cost (per 1,000 successful requests)",
    observed: `${moneySaid(ca)} → ${moneySaid(cb)}`,
    interval: "—",
  };
  if (a === null || b === null) {
    const missing = [a === null ? v.baseline : null, b === null ? v.candidate : null].filter(Boolean).join(" and ");
    return {
      ...base,
      relative: "—",
      winner: "not compared",
      sure: `${missing} ${a === null && b === null ? "are" : "is"} not priced (no cost model on the target): no cost comparison`,
      tone: "unpriced",
    };
  }
  if (ca?.unit !== cb?.unit)
    return { ...base, relative: "—", winner: "not compared", sure: `priced in ${ca?.unit} and ${cb?.unit}`, tone: "unpriced" };
  const rel = observedRelative(a, b);
  const cheaper = a === b ? null : b < a ? v.candidate : v.baseline;
  // As the CLI's cost line: how far the cheaper one stays cheaper, when a break-even was charted for the pair.
  const be = data.breakEvens.find((x) => x.serverless === cheaper && [v.baseline, v.candidate].includes(x.serverful));
  const until =
    be?.result.breakEvenRps == null || be.result.breakEvenRps === 0
      ? ""
      : `; cheaper up to ${fixed(be.result.breakEvenRps, 1)} req/s (break-even with ${be.serverful})`;
  return {
    ...base,
    relative: rel === null ? "—" : relativeSaid(rel),
    winner: cheaper ? `${cheaper} is cheaper` : "same cost",
    sure: `measured cost of these runs at this load (each target's cost model; no interval)${until}`,
    tone: "descriptive",
  };
}

/** Runs a side and what one more round would buy: the primary verdict's power now and after one more run a side. */
export function confidenceSaid(data: CompareData, v: MetricVerdict): string {
  const [na, nb] = [v.baseline, v.candidate].map((l) => data.groups.find((g) => g.label === l)?.runs.length ?? 0);
  const runs = `${na} vs ${nb} run${na === 1 && nb === 1 ? "" : "s"}`;
  if (v.basis === "seconds" && v.scope === "within-run")
    return `${runs}: one run a side, so no run-to-run spread and no verdict between configurations; one more round (2 vs 2 runs) gives one`;
  const effect = v.marginUnit === "points" ? `${v.effect}-point` : `${Math.round(v.effect * 100)}%`;
  const next = powerWithMoreRuns(v, 1);
  if (v.power === null || !next) return `${runs}: no power to state for ${v.metric} (${v.reason ?? "no interval"})`;
  const pc = (x: number) => `${Math.round(x * 100)}%`;
  const counted = v.basis === "runs" ? `${v.samples[0]} vs ${v.samples[1]} judged` : "widened by the stated run-to-run CV";
  return `${runs} (${counted}): finds a true ${effect} difference in ${v.metric} ${pc(v.power)} of the time; one more round (${next.runs[0]} vs ${next.runs[1]}): power ${pc(v.power)} → ${pc(next.power)}${v.runsNeeded !== null ? `; about ${v.runsNeeded} runs a side for 80%` : ""}`;
}

/** Each group's replicas over its runs (the CLI's scaling line): "A 1 replica throughout · B 1-4 pods". */
function scalingSaid(data: CompareData, labels: readonly string[]): string {
  return labels
    .map((label) => {
      const g = data.groups.find((x) => x.label === label);
      const counts = g?.infra.map((p) => p.replicas) ?? [];
      const unit = (g?.target && kindDefinition(g.target.kind)?.words.replicas) ?? "replicas";
      if (counts.length === 0) return `${label} no ${unit} recorded`;
      const [lo, hi] = [Math.min(...counts), Math.max(...counts)];
      return `${label} ${lo === hi ? `${lo} ${unit} throughout` : `${lo}-${hi} ${unit}`}`;
    })
    .join(" · ");
}

const lineTone: Record<string, string> = {
  significant: "text-blue-800 font-semibold",
  equivalent: "text-zinc-800",
  inconclusive: "text-zinc-700",
  descriptive: "text-zinc-700",
  observed: "text-amber-800",
  unpriced: "text-zinc-500",
};

/** The answer for one pair: four lines and the confidence line. */
function PairAnswer({ data, primary }: { data: CompareData; primary: MetricVerdict }) {
  const find = (metric: string) =>
    data.verdicts.find((v) => v.metric === metric && v.baseline === primary.baseline && v.candidate === primary.candidate);
  const labels: Record<string, string> = { "req/s": "throughput", "failure share": "failures" };
  const others = ["req/s", "failure share"].filter((m) => m !== primary.metric);
  const lines = [
    metricLine(
      data,
      primary,
      `${primary.metric.startsWith("p") ? "latency" : (labels[primary.metric] ?? primary.metric)} (${primary.metric}, primary)`,
    ),
    ...others.flatMap((m) => {
      const v = find(m);
      return v ? [metricLine(data, v, `${labels[m]} (${m === "req/s" ? "successful req/s" : "failure share"})`)] : [];
    }),
    costLine(data, primary),
  ];
  return (
    <div data-testid="verdict-answer-pair" data-baseline={primary.baseline} data-candidate={primary.candidate}>
      <p className="text-xs text-zinc-600">
        <span className="font-mono font-semibold text-zinc-900">{primary.candidate}</span> against{" "}
        <span className="font-mono font-semibold text-zinc-900">{primary.baseline}</span> (baseline); values baseline → candidate
      </p>
      <table className="mt-1 w-full text-xs">
        <thead className="text-left text-2xs uppercase tracking-wide text-zinc-500">
          <tr>
            <th className="py-1 pr-3 font-medium">What</th>
            <th className="py-1 pr-3 font-medium">Winner</th>
            <th className="py-1 pr-3 text-right font-medium">Relative</th>
            <th className="py-1 pr-3 font-medium">Interval</th>
            <th className="py-1 pr-3 font-medium">Observed</th>
            <th className="py-1 font-medium">How sure</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {lines.map((l) => (
            <tr key={l.key} data-testid="verdict-answer-line" data-line={l.key} data-tone={l.tone} className="align-top">
              <td className="py-1 pr-3 font-medium text-zinc-800">{l.label}</td>
              <td data-testid="answer-winner" className={`py-1 pr-3 ${lineTone[l.tone] ?? ""}`}>
                {l.winner}
              </td>
              <td data-testid="answer-relative" className="td-mono text-right">
                {l.relative}
              </td>
              <td data-testid="answer-interval" className="td-mono text-zinc-700">
                {l.interval}
              </td>
              <td data-testid="answer-observed" className="td-mono text-zinc-700">
                {l.observed}
              </td>
              <td data-testid="answer-sure" className="py-1 text-zinc-600">
                {l.sure}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {lines.some((l) => l.tone === "observed") && singleRunsOf(data, primary) && (
        <p data-testid="verdict-answer-why" className="mt-1 text-xs text-amber-800">
          <span className="font-medium">Why no verdict:</span> {SINGLE_RUN_WHY}.
        </p>
      )}
      <p data-testid="verdict-answer-confidence" className="mt-1 text-xs text-zinc-700">
        <span className="font-medium">Confidence:</span> {confidenceSaid(data, primary)}
      </p>
      <p data-testid="verdict-answer-scaling" className="text-xs text-zinc-600">
        <span className="font-medium">Scaling:</span> {scalingSaid(data, [primary.baseline, primary.candidate])}
      </p>
    </div>
  );
}

/**
 * The comparison's answer, at the top of the compare page, the printable report and the share view. `repeatable`:
 * the app's page, where an editor may queue one more run per group.
 */
export function VerdictAnswerCard({ data, repeatable = false }: { data: CompareData; repeatable?: boolean }) {
  const primaries = data.verdicts.filter((v) => v.role === "primary");
  if (primaries.length === 0) return null;
  return (
    <section data-testid="verdict-answer" className="break-inside-avoid space-y-3 rounded-md border-2 border-zinc-300 bg-white px-3 py-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-sm font-semibold text-zinc-900">Verdict</h2>
        {repeatable && (
          <RoleGate atLeast="editor">
            {/* Keyed by the runs shown: the comparison it opens starts afresh, with its own "repeat". */}
            <RepeatRuns key={data.groups.map((g) => g.runs.map((r) => r.id).join(",")).join(";")} data={data} />
          </RoleGate>
        )}
      </div>
      <p data-testid="verdict-answer-family" className="text-xs text-zinc-600">
        {familySummary(data.verdicts).text}
      </p>
      {primaries.map((v) => (
        <PairAnswer key={`${v.baseline}:${v.candidate}`} data={data} primary={v} />
      ))}
    </section>
  );
}

const FINISHED = new Set(["SUCCEEDED", "FAILED", "ABORTED"]);

type Repeat =
  | { state: "idle" }
  | { state: "starting" }
  | { state: "failed"; message: string }
  | { state: "running"; runs: Array<{ group: string; id: string; status: string }>; href: string };

async function postJson(url: string, body?: unknown): Promise<{ id: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => null)) as { id?: string; error?: { message?: string } } | null;
  if (!res.ok || !json?.id) throw new Error(json?.error?.message ?? `HTTP ${res.status}`);
  return { id: json.id };
}

/**
 * "Repeat": one more run per group, with each group's target and workload, then the comparison with them added once
 * they finish (their progress shown meanwhile). All or nothing: if a start fails, the runs started for the others are
 * deleted (aborted where deleting is not allowed), so no half-repeated comparison is left behind.
 */
function RepeatRuns({ data }: { data: CompareData }) {
  const router = useRouter();
  const [repeat, setRepeat] = useState<Repeat>({ state: "idle" });
  const missing = data.groups.filter((g) => !g.target || !g.workload).map((g) => g.label);

  useEffect(() => {
    if (repeat.state !== "running") return;
    if (repeat.runs.every((r) => FINISHED.has(r.status))) {
      router.push(repeat.href);
      return;
    }
    const timer = setTimeout(async () => {
      const runs = await Promise.all(
        repeat.runs.map(async (r) => {
          const res = await fetch(`/api/v1/runs/${r.id}`, { cache: "no-store" });
          const body = res.ok ? ((await res.json()) as { status?: string }) : null;
          return { ...r, status: body?.status ?? r.status };
        }),
      );
      setRepeat({ ...repeat, runs });
    }, 2000);
    return () => clearTimeout(timer);
  }, [repeat, router]);

  async function start() {
    setRepeat({ state: "starting" });
    const started: Array<{ group: string; id: string; status: string }> = [];
    try {
      for (const g of data.groups) {
        const { id } = await postJson("/api/v1/runs", { target: g.target!.name, workload: g.workload!.name });
        started.push({ group: g.label, id, status: "QUEUED" });
      }
    } catch (err) {
      for (const r of started) {
        const gone = await fetch(`/api/v1/runs/${r.id}`, { method: "DELETE" }).catch(() => null);
        if (!gone?.ok) await postJson(`/api/v1/runs/${r.id}/abort`).catch(() => null);
      }
      setRepeat({ state: "failed", message: `${(err as Error).message}; nothing was started` });
      return;
    }
    const query = selectionToQuery({
      groups: data.groups.map((g, i) => ({ label: g.label, runIds: [...g.runs.map((r) => r.id), started[i]!.id] })),
    });
    setRepeat({ state: "running", runs: started, href: `/compare?${query}` });
  }

  if (missing.length > 0)
    return (
      <span data-testid="verdict-repeat-unavailable" className="text-xs text-zinc-500">
        Repeat needs a target and workload per group ({missing.join(", ")}: imported)
      </span>
    );
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs print:hidden">
      {repeat.state === "running" ? (
        <span data-testid="verdict-repeat-progress" className="text-zinc-700">
          One more run per group:{" "}
          {repeat.runs.map((r, i) => (
            <span key={r.id} data-testid="verdict-repeat-run" data-run-id={r.id} data-status={r.status}>
              {i > 0 ? "; " : ""}
              <span className="font-mono">{r.group}</span> {r.status.toLowerCase()}
            </span>
          ))}
          {" · "}
          <a href={repeat.href} data-testid="verdict-repeat-link" className="text-blue-700 hover:underline">
            compare with them
          </a>{" "}
          (opens by itself when they finish)
        </span>
      ) : (
        <button
          type="button"
          data-testid="verdict-repeat"
          disabled={repeat.state === "starting"}
          onClick={start}
          className="rounded border border-zinc-300 bg-white px-2 py-0.5 text-zinc-800 hover:border-zinc-400 disabled:opacity-50"
          title="Queue one more run of each group's target and workload, then compare with them added"
        >
          {repeat.state === "starting" ? "Starting…" : `Repeat: one more run per group (${data.groups.length})`}
        </button>
      )}
      {repeat.state === "failed" && (
        <span data-testid="verdict-repeat-error" className="text-red-700">
          {repeat.message}
        </span>
      )}
    </div>
  );
}
