// The demo's closing words: three lines read off the comparison the web app
// computed (GET /api/v1/comparisons?study=ID, parsed with @opsbench/api's schema of
// that answer), so the terminal and the page never disagree.
import { compareDataSchema } from "@opsbench/api";
import { familySummary, kindDefinition } from "@opsbench/core";
import type { z } from "zod";

/** The parts of the comparison the demo's lines read. */
export type DemoComparison = Pick<z.output<typeof compareDataSchema>, "groups" | "costs" | "breakEvens" | "verdicts">;

export const parseComparison = (body: unknown): DemoComparison => compareDataSchema.parse(body);

const num = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toPrecision(3));

/**
 * The verdicts in one line: the family's "k of m significant after Holm's correction", then what is significant
 * (never a within-run verdict: single runs without a stated run-to-run CV are not verdicts between configurations).
 */
export function verdictLine(c: DemoComparison): string | null {
  if (!c.verdicts.length) return null;
  const summary = familySummary(c.verdicts);
  const found = c.verdicts
    .filter((v) => v.significant)
    .map((v) => `${v.outcome === "candidate-better" ? v.candidate : v.baseline} better on ${v.metric}`);
  return `verdicts ${summary.text}${found.length ? `: ${found.join(" · ")}` : ""}`;
}

/** The verdicts' line when there are verdicts, then three: latency and goodput, scaling, cost with the break-even. */
export function demoVerdict(c: DemoComparison): string[] {
  const name = (i: number) => c.groups[i]?.target?.name ?? c.groups[i]?.label ?? "?";
  const byLabel = new Map(c.groups.map((g, i) => [g.label, name(i)]));
  const latency = c.groups.map((g, i) =>
    g.merged ? `${name(i)} p95 ${num(g.merged.latencyMs.p95)} ms, goodput ${g.merged.goodput.toFixed(2)} %` : `${name(i)} no results`,
  );
  const scaling = c.groups.map((g, i) => {
    const counts = g.infra.map((p) => p.replicas);
    const unit = (g.target && kindDefinition(g.target.kind)?.words.replicas) ?? "replicas";
    if (!counts.length) return `${name(i)} no ${unit} recorded`;
    const [lo, hi] = [Math.min(...counts), Math.max(...counts)];
    return `${name(i)} ${lo === hi ? `${lo} ${unit} throughout` : `${lo}-${hi} ${unit}`}`;
  });
  const priced = c.groups.map((_, i) => ({ name: name(i), cost: c.costs[i] ?? null }));
  const cost = priced.map((p) =>
    p.cost?.perThousandSuccessfulRequests != null
      ? `${p.name} ${num(p.cost.perThousandSuccessfulRequests)} ${p.cost.unit}`
      : `${p.name} not priced`,
  );
  return [
    // First, so the three lines above the comparison's address stay latency, scaling, cost.
    ...[verdictLine(c)].filter((l): l is string => l !== null),
    `latency  ${latency.join(" · ")}`,
    `scaling  ${scaling.join(" · ")}`,
    `cost     per 1,000 successful requests: ${cost.join(" · ")}${cheaper(priced, c.breakEvens, byLabel)}`,
  ];
}

function cheaper(
  priced: Array<{ name: string; cost: DemoComparison["costs"][number] }>,
  breakEvens: DemoComparison["breakEvens"],
  byLabel: Map<string, string>,
): string {
  const known = priced.filter((p) => p.cost?.perThousandSuccessfulRequests != null && p.cost.perThousandSuccessfulRequests > 0);
  if (known.length < 2 || new Set(known.map((p) => p.cost!.unit)).size > 1) return "";
  const sorted = [...known].sort((a, b) => a.cost!.perThousandSuccessfulRequests! - b.cost!.perThousandSuccessfulRequests!);
  const [best, next] = [sorted[0]!, sorted[1]!];
  const factor = next.cost!.perThousandSuccessfulRequests! / best.cost!.perThousandSuccessfulRequests!;
  let out = `; ${best.name} is ${factor.toFixed(1)}x cheaper at this load`;
  const be = breakEvens.find((b) => byLabel.get(b.serverless) === best.name);
  if (be) {
    const rps = be.result.breakEvenRps;
    out +=
      rps === null
        ? `, and at every steady rate charted`
        : rps === 0
          ? ""
          : `, up to ${num(rps)} req/s (break-even with ${byLabel.get(be.serverful) ?? be.serverful})`;
  }
  return out;
}
