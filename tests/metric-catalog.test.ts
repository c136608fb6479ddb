// A new run-level metric is one catalog entry: given the catalog extended by it, the verdict table, the box plots,
// the CSV export, the gate's --fail-on and the study tables all carry it, without another edit (issue 33). Each
// check below fails if that reader keeps a list of its own instead of the catalog it is given.
import { type StudyViewAnswer, studyViewSchema } from "@opsbench/api";
import {
  cellStats,
  comparisonVerdicts,
  emptyHistogram,
  evaluateGateRule,
  extendMetricCatalog,
  METRIC_CATALOG,
  parseGateRule,
  recordValue,
  STUDY_CELL_FIGURES,
  STUDY_METRICS,
  studyCellFigures,
  studyRunResult,
  studyTableCells,
  studyTableColumns,
  studyTableRows,
  summarize,
  toPart,
  type ResultCell,
  type RunMetric,
  type RunSummary,
} from "@opsbench/core";
import { describe, expect, it } from "vitest";
import { boxTable, repetitionValues } from "../apps/web/lib/export/comparison-tables";
import { toCsv } from "../apps/web/lib/export/data-table";
import { formatStudy } from "../apps/cli/src/study-command";

/** The mean latency of all responses: a run-level metric no reader knows by name. */
const meanLatency: RunMetric = {
  key: "mean latency",
  label: "mean latency, all responses",
  unit: "ms",
  decimals: 2,
  lowerIsBetter: true,
  kind: "run-level",
  ofRun: (s) => s.latencyMs.avg,
  ofWindow: () => null,
  gate: [{ alias: "avg" }],
  studyTables: [{ table: "request-durations", column: "meanLatency", heading: "Mean latency" }],
  studyField: "meanLatency",
};
const catalog = extendMetricCatalog(meanLatency);

/** A run's summary from its response times (ms), all successful. */
function summaryOf(values: readonly number[]): RunSummary {
  const h = emptyHistogram();
  for (const v of values) recordValue(h, v);
  const cell: ResultCell = { ...toPart(h), ts: new Date(0), name: "GET /", class: "2xx", failures: 0 };
  return summarize([cell], 10);
}
const run = (ms: number, spread: number) => summaryOf(Array.from({ length: 200 }, (_, i) => ms + ((i % 10) - 4.5) * spread));
// The candidate is about 50% slower on every run.
const baseline = [run(10, 0.2), run(10.2, 0.2), run(9.9, 0.2)];
const candidate = [run(15, 0.2), run(15.3, 0.2), run(14.8, 0.2)];

describe("a metric added in one catalog entry", () => {
  it("is judged in the verdict table, by the comparison code", () => {
    const verdicts = comparisonVerdicts(
      [
        { label: "a", summaries: baseline, windows: [] },
        { label: "b", summaries: candidate, windows: [] },
      ],
      { catalog },
    );
    expect(verdicts.map((v) => v.metric)).toEqual(catalog.map((m) => m.key));
    const v = verdicts.find((x) => x.metric === "mean latency")!;
    expect(v.samples).toEqual([3, 3]);
    expect(v.outcome).toBe("baseline-better");
    // Described beside the primary metric, never in its family...
    expect(v.role).toBe("descriptive");
    expect(v.significant).toBe(false);
    expect(v.familySize).toBe(1);
    // ...unless it is the one picked as primary.
    const picked = comparisonVerdicts(
      [
        { label: "a", summaries: baseline, windows: [] },
        { label: "b", summaries: candidate, windows: [] },
      ],
      { catalog, primaryMetric: "mean latency" },
    ).find((x) => x.metric === "mean latency")!;
    expect(picked.role).toBe("primary");
    expect(picked.significant).toBe(true);
  });

  it("has its box plot and its rows in the CSV export, under the same name", () => {
    const groups = [baseline, candidate].map((summaries, g) => ({
      label: g === 0 ? "a" : "b",
      runs: summaries.map((summary, i) => ({ id: `${g}-${i}`, repetition: i + 1, status: "SUCCEEDED", summary })),
    }));
    const data = { groups };
    const box = repetitionValues(data, catalog).find((m) => m.metric.key === "mean latency");
    expect(box?.metric.label).toBe("mean latency, all responses");
    expect(box?.groups.map((g) => g.runs.map((r) => r.value))).toEqual([
      baseline.map((s) => s.latencyMs.avg),
      candidate.map((s) => s.latencyMs.avg),
    ]);
    const csv = toCsv(boxTable(data, catalog)).split("\r\n");
    const rows = csv.filter((l) => l.startsWith("mean latency,ms,"));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(`,b,3,${Math.min(...candidate.map((s) => s.latencyMs.avg))},`);
    // Without it, there is no such row: the export reads the catalog it is given.
    expect(toCsv(boxTable(data)).includes("mean latency")).toBe(false);
  });

  it("is a name --fail-on accepts, judged on its verdict by the gate", () => {
    expect(() => parseGateRule("avg > +5%")).toThrow(/unknown metric "avg"/);
    const rule = parseGateRule("avg > +5%", catalog);
    expect(rule).toMatchObject({ metric: "mean latency", verdictMetric: "mean latency", limit: 0.05, unit: "%" });
    const verdicts = comparisonVerdicts(
      [
        { label: "a", summaries: baseline, windows: [] },
        { label: "b", summaries: candidate, windows: [] },
      ],
      { catalog },
    );
    const result = evaluateGateRule(rule, verdicts);
    expect(result.outcome).toBe("fail");
    expect(result.change!.low).toBeGreaterThan(0.3);
  });

  it("shows in the study table its entry names, with its figures per cell", () => {
    expect(studyTableColumns("request-durations", catalog)).toEqual([...studyTableColumns("request-durations"), "meanLatency"]);
    const cells = studyTableCells(
      [
        {
          target: "t",
          workload: "w",
          runs: candidate.map((summary, i) => ({ runId: `r${i}`, summary, maxThroughputRps: null, cpuPercent: null })),
        },
      ],
      catalog,
    );
    const table = studyTableRows("request-durations", cells, catalog);
    const at = table.columns.indexOf("meanLatency");
    expect(at).toBeGreaterThan(0);
    expect(table.columns.slice(at)).toEqual(["meanLatency", "meanLatency_low", "meanLatency_high", "meanLatency_interval"]);
    const mean = candidate.reduce((sum, s) => sum + s.latencyMs.avg, 0) / candidate.length;
    expect(table.rows[0]![at]).toBeCloseTo(mean, 9);
    expect(studyTableRows("request-durations", cells).columns).not.toContain("meanLatency");
  });

  it("is refused when its key is one the catalog already has (one metric, one name)", () => {
    expect(() => extendMetricCatalog({ ...meanLatency, key: "p95" })).toThrow(/already in the catalog/);
  });

  it("is a figure of the study cells, and `opsbench study show` prints it with its unit and decimals", () => {
    const figures = studyCellFigures(catalog);
    expect(figures.map((f) => f.key)).toEqual([...STUDY_METRICS.slice(0, -2), "meanLatency", "goodput", "failures"]);
    const results = candidate.map((summary) => studyRunResult({ status: "SUCCEEDED", summary }, figures)!);
    const stats = cellStats(results, figures);
    const mean = candidate.reduce((sum, s) => sum + s.latencyMs.avg, 0) / candidate.length;
    expect(stats.meanLatency!.n).toBe(3);
    expect(stats.meanLatency!.mean).toBeCloseTo(mean, 9);

    const view = studyView(candidate);
    const cell = view.cells[0]!;
    const extended = { ...view, cells: [{ ...cell, stats: { ...cell.stats, ...stats } }] };
    const text = formatStudy(extended, figures).split("\n");
    const line = text.find((l) => l.startsWith("    mean latency "));
    expect(line).toMatch(new RegExp(`^    mean latency ${mean.toFixed(2)} \\+- [\\d.]+ ms \\(95% CI [\\d.]+ to [\\d.]+, t\\)$`));
    expect(text.find((l) => l.startsWith("    merged "))).toContain(`mean latency ${candidate[0]!.latencyMs.avg.toFixed(2)} ms`);
    // The built-in report has no such line: it prints the figures it is given.
    expect(formatStudy(extended).includes("mean latency")).toBe(false);
  });
});

describe("the study cells and the study API, from the catalog", () => {
  it("show the catalog's metrics that have a study field, then goodput and failures; the API's answer is shaped by them", () => {
    const shown = METRIC_CATALOG.filter((m) => m.studyField !== undefined);
    expect(STUDY_CELL_FIGURES.map((f) => f.label)).toEqual([...shown.map((m) => m.key), "goodput", "failures"]);
    expect(STUDY_METRICS).toEqual([...shown.map((m) => m.studyField), "goodput", "failures"]);
    const view = studyView(baseline);
    // The strict schema takes the view core computed, and refuses a cell without one of the figures.
    expect(studyViewSchema.parse(view).cells[0]!.stats.p95.n).toBe(3);
    const { p95: _, ...withoutP95 } = view.cells[0]!.stats;
    expect(studyViewSchema.safeParse({ ...view, cells: [{ ...view.cells[0]!, stats: withoutP95 }] }).success).toBe(false);
    const p95 = formatStudy(view)
      .split("\n")
      .find((l) => l.startsWith("    p95 "));
    expect(p95).toMatch(/^ {4}p95 {6}\d+\.\d{2} \+- \d+\.\d{2} ms \(95% CI /);
  });
});

/** A study of one cell whose repetitions had these summaries, as the API answers it. */
function studyView(summaries: readonly RunSummary[]): StudyViewAnswer {
  const at = new Date(0).toISOString();
  const runs = summaries.map((summary, i) => ({
    id: `00000000-0000-4000-8000-00000000000${i}`,
    cell: 0,
    status: "SUCCEEDED",
    repetition: i + 1,
    round: i + 1,
    position: i + 1,
    flags: [],
    error: null,
    startedAt: at,
    finishedAt: at,
    result: studyRunResult({ status: "SUCCEEDED", summary })!,
  }));
  return {
    id: "00000000-0000-4000-8000-0000000000aa",
    name: "s",
    status: "SUCCEEDED",
    order: "sequential",
    seed: null,
    repetitions: summaries.length,
    cooldownSeconds: 0,
    baselineWaitSeconds: 0,
    warmupSeconds: 0,
    primaryMetric: null,
    createdAt: at,
    startedAt: at,
    finishedAt: at,
    error: null,
    progress: {
      total: runs.length,
      finished: runs.length,
      succeeded: runs.length,
      failed: 0,
      aborted: 0,
      etaSeconds: null,
      overheadSeconds: 0,
      current: null,
    },
    cells: [
      {
        index: 0,
        target: { id: "t", name: "t", kind: null },
        workload: { id: "w", name: "w" },
        runs,
        stats: cellStats(runs.map((r) => r.result)),
        merged: summaries[0]!,
        flags: [],
      },
    ],
    runs,
  };
}
