// Every table and series of a comparison as a DataTable, for CSV/JSON export and
// for the tables on the pages: one source, so what is shown is what is exported.
import type { ComparisonTableName } from "@opsbench/api";
import {
  flagsOfGroup,
  flagsOfRun,
  METRIC_CATALOG,
  rankablePriced,
  STORED_QUANTILE_KEYS,
  successFirstLatency,
  type MetricCatalog,
} from "@opsbench/core";
import type { CompareData } from "@/features/compare/compare-data";
import type { DataTable } from "./data-table";

const codes = (fs: Array<{ code: string }>) => fs.map((f) => f.code).join(";");

/** Linear-interpolated quantile of sorted values (the type-7 definition spreadsheets use). */
export function quantileOf(sorted: number[], p: number): number {
  const i = p * (sorted.length - 1);
  const lo = sorted[Math.floor(i)]!;
  const hi = sorted[Math.ceil(i)]!;
  return lo + (hi - lo) * (i - Math.floor(i));
}

export interface BoxStats {
  n: number;
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  values: number[];
}

export function boxStats(values: number[]): BoxStats | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    min: s[0]!,
    q1: quantileOf(s, 0.25),
    median: quantileOf(s, 0.5),
    q3: quantileOf(s, 0.75),
    max: s[s.length - 1]!,
    values,
  };
}

/**
 * The number each run of a group is shown with: its repetition, or its place in
 * the group when repetitions repeat (runs started on their own are all repetition 1).
 */
export function runNumbers(g: { runs: ReadonlyArray<{ id: string; repetition: number }> }): Map<string, number> {
  const unique = new Set(g.runs.map((r) => r.repetition)).size === g.runs.length;
  return new Map(g.runs.map((r, i) => [r.id, unique ? r.repetition : i + 1]));
}

/** What the box plots read of a comparison: each group's label and runs. */
export interface RepetitionGroups {
  groups: ReadonlyArray<{
    label: string;
    runs: ReadonlyArray<Pick<CompareData["groups"][number]["runs"][number], "id" | "repetition" | "status" | "summary">>;
  }>;
}

/** Per metric of the catalog (the verdicts' metrics, by the same names), per group: the values of the group's succeeded repetitions. */
export function repetitionValues(data: RepetitionGroups, catalog: MetricCatalog = METRIC_CATALOG) {
  return catalog.map((m) => ({
    metric: m,
    groups: data.groups.map((g) => {
      const n = runNumbers(g);
      return {
        label: g.label,
        runs: g.runs
          .filter((r) => r.summary && r.status === "SUCCEEDED")
          .map((r) => ({ id: r.id, repetition: n.get(r.id)!, value: m.ofRun(r.summary!) })),
      };
    }),
  }));
}

/** The box plots' figures per metric and group (the "box" export): quartiles over the succeeded repetitions, and every value. */
export function boxTable(data: RepetitionGroups, catalog: MetricCatalog = METRIC_CATALOG): DataTable {
  return {
    name: "box",
    columns: ["metric", "unit", "group", "n", "min", "q1", "median", "q3", "max", "values"],
    rows: repetitionValues(data, catalog).flatMap(({ metric, groups }) =>
      groups.map((g) => {
        const b = boxStats(g.runs.map((r) => r.value));
        return [
          metric.key,
          metric.unit,
          g.label,
          b?.n ?? 0,
          b?.min ?? null,
          b?.q1 ?? null,
          b?.median ?? null,
          b?.q3 ?? null,
          b?.max ?? null,
          g.runs.map((r) => r.value).join(";"),
        ];
      }),
    ),
  };
}

export interface CostCell {
  group: number;
  requests: number;
  p95: number;
  /** Cost per 1,000 successful requests (a failed request is billed but served nobody). */
  perThousand: number | null;
  unit: string | null;
  /** What the price assumed rather than measured (an estimated row); empty when nothing. */
  assumptions: string[];
}

/**
 * The IoT study's Table 5.45 shape: rows request name x workload, columns targets,
 * cells the cost per 1,000 successful requests (the runs' whole cost over their successful requests).
 * Columns are target names, or group labels when one target x workload appears twice.
 */
export function costTable(data: Pick<CompareData, "groups" | "costs">) {
  const byTarget = data.groups.map((g) => g.target?.name ?? g.label);
  const cellKey = (i: number, key: string[]) => `${data.groups[i]!.workload?.name ?? "-"}\u0000${key[i]}`;
  const unique = new Set(data.groups.map((_, i) => cellKey(i, byTarget))).size === data.groups.length;
  const columnOf = unique ? byTarget : data.groups.map((g) => g.label);
  const columns = [...new Set(columnOf)];
  const rows: Array<{ request: string; workload: string; cells: Record<string, CostCell>; cheapest: string | null }> = [];
  data.groups.forEach((g, gi) => {
    const workload = g.workload?.name ?? "-";
    for (const r of g.byRequest) {
      let row = rows.find((x) => x.request === r.name && x.workload === workload);
      if (!row) {
        row = { request: r.name, workload, cells: {}, cheapest: null };
        rows.push(row);
      }
      const cost = data.costs[gi] ?? null;
      row.cells[columnOf[gi]!] = {
        group: gi,
        requests: r.requests,
        p95: r.p95,
        perThousand: cost?.perThousandSuccessfulRequests ?? null,
        unit: cost?.unit ?? null,
        assumptions: cost?.assumptions ?? [],
      };
    }
  });
  for (const row of rows) {
    const priced = Object.entries(row.cells).filter(([, c]) => c.perThousand !== null);
    // Ranked only among two or more priced targets: an unpriced one never makes the other "the cheapest".
    if (rankablePriced(priced.length)) row.cheapest = priced.reduce((a, b) => (b[1].perThousand! < a[1].perThousand! ? b : a))[0];
  }
  rows.sort((a, b) => a.request.localeCompare(b.request) || a.workload.localeCompare(b.workload));
  return { columns, rows };
}

export function comparisonTable(data: CompareData, name: ComparisonTableName, catalog: MetricCatalog = METRIC_CATALOG): DataTable {
  const G = data.groups;
  switch (name) {
    case "summary":
      return {
        name,
        columns: [
          "group",
          "target",
          "workload",
          "runs",
          "requests",
          "failures",
          "goodput_pct",
          "success_ratio_pct",
          "rps",
          "avg_ms",
          "min_ms",
          "p50_ms",
          "p90_ms",
          "p95_ms",
          "p99_ms",
          "max_ms",
          "p99_all_responses_ms",
          "cost_per_1000_successful_requests",
          "cost_unit",
          "flags",
        ],
        rows: G.map((g, i) => {
          const s = g.merged;
          const l = s ? successFirstLatency(s) : undefined;
          return [
            g.label,
            g.target?.name ?? null,
            g.workload?.name ?? null,
            g.runs.length,
            s?.requests ?? null,
            s?.failures ?? null,
            s?.goodput ?? null,
            s?.successRatio ?? null,
            s?.rps ?? null,
            l?.avg ?? null,
            l?.min ?? null,
            l?.p50 ?? null,
            l?.p90 ?? null,
            l?.p95 ?? null,
            l?.p99 ?? null,
            l?.max ?? null,
            s?.latencyMs.p99 ?? null,
            data.costs[i]?.perThousandSuccessfulRequests ?? null,
            data.costs[i]?.unit ?? null,
            codes(flagsOfGroup(g)),
          ];
        }),
      };
    case "runs":
      return {
        name,
        columns: [
          "group",
          "run_id",
          "repetition",
          "status",
          "requests",
          "failures",
          "goodput_pct",
          "rps",
          "p50_ms",
          "p95_ms",
          "p99_ms",
          "max_ms",
          "p99_all_responses_ms",
          "dropped_iterations",
          "generator_cpu_pct",
          "flags",
        ],
        rows: G.flatMap((g) =>
          g.runs.map((r) => {
            const s = r.summary;
            return [
              g.label,
              r.id,
              r.repetition,
              r.status,
              s?.requests ?? null,
              s?.failures ?? null,
              s?.goodput ?? null,
              s?.rps ?? null,
              s ? successFirstLatency(s).p50 : null,
              s ? successFirstLatency(s).p95 : null,
              s ? successFirstLatency(s).p99 : null,
              s ? successFirstLatency(s).max : null,
              s?.latencyMs.p99 ?? null,
              s?.load?.droppedIterations ?? null,
              s?.load?.generatorCpuPercent ?? null,
              codes(flagsOfRun(r)),
            ];
          }),
        ),
      };
    case "series":
      return {
        name,
        columns: ["group", "offset_s", "requests", ...STORED_QUANTILE_KEYS.map((q) => `${q}_ms`), "goodput_pct"],
        rows: G.flatMap((g) =>
          g.series.map((b) => [g.label, b.offsetSeconds, b.requests, ...STORED_QUANTILE_KEYS.map((q) => b[`${q}Ms` as const]), b.goodput]),
        ),
      };
    case "distribution":
      return {
        name,
        columns: ["group", "latency_ms", "cumulative"],
        rows: G.flatMap((g) => g.distribution.map((d) => [g.label, d.ms, d.cumulative])),
      };
    case "box":
      return boxTable(data, catalog);
    case "infra":
      return {
        name,
        columns: ["group", "run_id", "offset_s", "replicas", "cpu_pct"],
        rows: G.flatMap((g) => g.infra.map((p) => [g.label, p.runId, p.offsetSeconds, p.replicas, p.cpuPercent])),
      };
    case "verdicts":
      return {
        name,
        columns: [
          "metric",
          "baseline",
          "candidate",
          "basis",
          "scope",
          "run_to_run_cv",
          "n_baseline",
          "n_candidate",
          "method",
          "difference",
          "ci_low",
          "ci_high",
          "level",
          "margin",
          "margin_unit",
          "outcome",
          "significant",
          "p_value",
          "holm_adjusted_p",
          "family",
          "family_size",
          "detectable",
          "runs_needed",
          "resamples",
          "seed",
          "text",
        ],
        rows: data.verdicts.map((v) => [
          v.metric,
          v.baseline,
          v.candidate,
          v.basis,
          v.scope,
          v.runToRunCv,
          v.samples[0],
          v.samples[1],
          v.method,
          v.estimate,
          v.low,
          v.high,
          v.level,
          v.margin,
          v.marginUnit,
          v.outcome,
          v.significant,
          v.pValue,
          v.adjustedPValue,
          v.family,
          v.familySize,
          v.detectable,
          v.runsNeeded,
          v.resamples,
          v.seed,
          v.text,
        ]),
      };
    case "cost": {
      const t = costTable(data);
      return {
        name,
        columns: [
          "request",
          "workload",
          "target",
          "requests",
          "p95_ms",
          "cost_per_1000_successful_requests",
          "cost_unit",
          "cheapest",
          "estimated",
        ],
        rows: t.rows.flatMap((r) =>
          t.columns
            .filter((c) => r.cells[c])
            .map((c) => {
              const cell = r.cells[c]!;
              return [
                r.request,
                r.workload,
                c,
                cell.requests,
                cell.p95,
                cell.perThousand,
                cell.unit,
                r.cheapest === c,
                cell.assumptions.length ? cell.assumptions.join("; ") : null,
              ];
            }),
        ),
      };
    }
  }
}
