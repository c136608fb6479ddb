// A study's tables laid out as the studies printed them: the IoT study's request
// counts and durations (one table per workload, a row per deployment), its cost per
// 1,000 requests (workloads x deployments, the cheapest in bold), study 001's success
// ratio (deployments x workloads, k6's expected_response ratio beside it), and the
// throughput definitions. Every figure: the mean over the cell's succeeded
// repetitions, its interval under it (core's domain-interval.ts: a 95% interval
// inside the figure's domain from 3 runs, the runs' range from 2). Server-rendered; each figure carries its
// numbers in data-* attributes for tests and scripts.
import {
  intervalNote,
  STUDY_TABLE_DEFINITIONS,
  STUDY_TABLE_METRICS,
  STUDY_TABLES,
  studyTableColumns,
  type SampleStats,
  type StudyTableCell,
  type StudyTableId,
  type StudyTableMetric,
} from "@opsbench/core";
import type { StudyTablesView } from "@opsbench/db";
import type { ReactNode } from "react";
import { NO_VALUE } from "@/lib/format";
import { tableCell, tableHead } from "@/components/panel";
import { ScrollX } from "@/components/scroll-x";

const decimals = (m: StudyTableMetric) => STUDY_TABLE_METRICS[m]?.decimals ?? 2;

function Figure({
  table,
  cell,
  metric,
  bold = false,
}: {
  table: StudyTableId;
  cell: StudyTableCell | undefined;
  metric: StudyTableMetric;
  bold?: boolean;
}) {
  const s: SampleStats | undefined = cell?.stats[metric];
  const d = decimals(metric);
  const unit = metric === "costPerThousand" ? (cell?.costUnit ?? "") : (STUDY_TABLE_METRICS[metric]?.unit ?? "");
  return (
    <td
      className={`${tableCell} text-right font-mono tabular-nums`}
      data-testid="study-table-figure"
      data-table={table}
      data-target={cell?.target}
      data-workload={cell?.workload}
      data-metric={metric}
      data-n={s?.n ?? 0}
      data-mean={s?.mean ?? undefined}
      data-low={s?.interval?.low ?? undefined}
      data-high={s?.interval?.high ?? undefined}
      data-interval={s?.interval?.kind ?? undefined}
    >
      <span className={bold ? "font-bold" : undefined}>{s?.mean == null ? NO_VALUE : s.mean.toFixed(d)}</span>
      {s?.mean != null && unit && unit !== "%" && <span className="ml-0.5 text-2xs text-zinc-500">{unit}</span>}
      {s?.mean != null && unit === "%" && <span className="text-zinc-500">%</span>}
      {metric === "costPerThousand" && cell?.costEstimated && (
        <span className="ml-1 text-amber-700" title="some run's price assumed what it did not measure">
          est.
        </span>
      )}
      <div className="text-2xs text-zinc-500" title={s?.interval ? intervalNote(s.interval, s.n) : undefined}>
        {!s?.interval ? (
          ""
        ) : s.interval.kind === "value" ? (
          "1 run, no interval"
        ) : s.interval.kind === "min-max" ? (
          <>
            min–max [{s.interval.low.toFixed(d)}, {s.interval.high.toFixed(d)}]
            <span className="block text-amber-700">n = {s.n}: not informative</span>
          </>
        ) : (
          `[${s.interval.low.toFixed(d)}, ${s.interval.high.toFixed(d)}]`
        )}
      </div>
    </td>
  );
}

function TableFrame({ id, view, children, extra }: { id: StudyTableId; view: StudyTablesView; children: ReactNode; extra?: ReactNode }) {
  const t = STUDY_TABLES[id];
  const request = view.requestName ? `&request=${encodeURIComponent(view.requestName)}` : "";
  const href = (format: string) => `/api/v1/studies/${view.id}/tables?table=${id}&format=${format}${request}`;
  return (
    <section data-testid={`study-table-${id}`} className="break-inside-avoid rounded-md border border-zinc-200 bg-white">
      <div className="flex flex-wrap items-baseline gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-700">{t.title}</h2>
        <span className="text-2xs text-zinc-500">as in {t.source}</span>
        {extra}
        <span className="ml-auto flex gap-2 text-2xs print:hidden">
          <a data-testid={`study-table-csv-${id}`} href={href("csv")} className="text-blue-600 hover:underline">
            CSV
          </a>
          <a href={href("json")} className="text-blue-600 hover:underline">
            JSON
          </a>
        </span>
      </div>
      <ScrollX>{children}</ScrollX>
    </section>
  );
}

const ordered = (xs: readonly string[]) => [...new Set(xs)];

/** One table per workload, a row per target (the IoT study's Tables 5.x). */
function RowsTable({ id, view }: { id: StudyTableId; view: StudyTablesView }) {
  const metrics = studyTableColumns(id);
  const workloads = ordered(view.cells.map((c) => c.workload));
  const extra =
    id === "throughput" ? (
      <span className="text-2xs text-zinc-500">max throughput of {view.requestName ? `"${view.requestName}"` : "all requests"}</span>
    ) : null;
  return (
    <TableFrame id={id} view={view} extra={extra}>
      {workloads.map((w) => (
        <table key={w} className="w-full border-b border-zinc-100 text-xs">
          <thead className="bg-zinc-50">
            <tr>
              <th className={tableHead}>{w}: deployment</th>
              <th className={`${tableHead} text-right`}>n</th>
              {metrics.map((m) => (
                <th key={m} className={`${tableHead} text-right`}>
                  {STUDY_TABLE_METRICS[m]?.label ?? m}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {view.cells
              .filter((c) => c.workload === w)
              .map((c) => (
                <tr key={c.target}>
                  <td className={`${tableCell} font-mono`}>{c.target}</td>
                  <td className={`${tableCell} text-right font-mono`}>{c.n}</td>
                  {metrics.map((m) => (
                    <Figure key={m} table={id} cell={c} metric={m} />
                  ))}
                </tr>
              ))}
          </tbody>
        </table>
      ))}
    </TableFrame>
  );
}

/** Table 5.45: a row per workload, the targets side by side, the cheapest in bold. */
function CostTable({ view }: { view: StudyTablesView }) {
  const targets = ordered(view.cells.map((c) => c.target));
  const workloads = ordered(view.cells.map((c) => c.workload));
  const find = (t: string, w: string) => view.cells.find((c) => c.target === t && c.workload === w);
  return (
    <TableFrame id="cost" view={view}>
      <table className="w-full text-xs">
        <thead className="bg-zinc-50">
          <tr>
            <th className={tableHead}>Workload</th>
            {targets.map((t) => (
              <th key={t} className={`${tableHead} text-right`}>
                {t}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {workloads.map((w) => {
            const means = targets.map((t) => find(t, w)?.stats.costPerThousand.mean ?? null);
            const known = means.filter((m): m is number => m !== null);
            const cheapest = known.length > 1 ? Math.min(...known) : null;
            return (
              <tr key={w}>
                <td className={`${tableCell} font-mono`}>{w}</td>
                {targets.map((t, i) => (
                  <Figure
                    key={t}
                    table="cost"
                    cell={find(t, w)}
                    metric="costPerThousand"
                    bold={cheapest !== null && means[i] === cheapest}
                  />
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="px-3 py-1.5 text-2xs text-zinc-500">
        Per 1,000 successful (2xx) requests: a failed request is billed but served nobody. In each row the cheapest deployment is in bold;
        "est." marks a price that assumed what it did not measure.
      </p>
    </TableFrame>
  );
}

/** Table 4.3: a row per target, the workloads side by side; k6's expected_response ratio beside each success ratio. */
function SuccessRatioTable({ view }: { view: StudyTablesView }) {
  const targets = ordered(view.cells.map((c) => c.target));
  const workloads = ordered(view.cells.map((c) => c.workload));
  const find = (t: string, w: string) => view.cells.find((c) => c.target === t && c.workload === w);
  return (
    <TableFrame id="success-ratio" view={view}>
      <table className="w-full text-xs">
        <thead className="bg-zinc-50">
          <tr>
            <th className={tableHead} rowSpan={2}>
              Deployment
            </th>
            {workloads.map((w) => (
              <th key={w} className={`${tableHead} text-center`} colSpan={2}>
                {w}
              </th>
            ))}
          </tr>
          <tr>
            {workloads.map((w) => [
              <th key={`${w}-2xx`} className={`${tableHead} text-right`}>
                success ratio (2xx)
              </th>,
              <th key={`${w}-k6`} className={`${tableHead} text-right`}>
                k6 expected_response
              </th>,
            ])}
          </tr>
        </thead>
        <tbody>
          {targets.map((t) => (
            <tr key={t}>
              <td className={`${tableCell} font-mono`}>{t}</td>
              {workloads.map((w) => [
                <Figure key={`${w}-2xx`} table="success-ratio" cell={find(t, w)} metric="successRatio" />,
                <Figure key={`${w}-k6`} table="success-ratio" cell={find(t, w)} metric="expectedResponseRatio" />,
              ])}
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

export function StudyTables({ view }: { view: StudyTablesView }) {
  return (
    <div className="space-y-4">
      <RowsTable id="request-counts" view={view} />
      <RowsTable id="request-durations" view={view} />
      <CostTable view={view} />
      <SuccessRatioTable view={view} />
      <RowsTable id="throughput" view={view} />
      <RowsTable id="scaling" view={view} />
      <section
        data-testid="study-table-definitions"
        className="rounded-md border border-zinc-200 bg-white px-3 py-2 text-2xs text-zinc-600"
      >
        <h2 className="mb-1 text-xs font-medium text-zinc-700">Definitions</h2>
        <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5">
          {STUDY_TABLE_DEFINITIONS.map((d) => [
            <dt key={`${d.id}-t`} className="font-medium">
              {d.label} ({d.source})
            </dt>,
            <dd key={`${d.id}-d`}>{d.definition}</dd>,
          ])}
          <dt className="font-medium">interval</dt>
          <dd>
            from 3 succeeded repetitions, the 95% t-interval (Student's t, n - 1 degrees of freedom) on the scale where the figure cannot
            leave its domain: the log for positive figures (latency, req/s, counts, durations, cost, CPU), the logit for shares (goodput,
            success ratio), cut at 0 or 100% when a run sits there; from 2, the runs' range (min–max, not informative); from 1, no interval.
            The CSV and JSON files carry the same ends and name the kind.
          </dd>
        </dl>
      </section>
    </div>
  );
}
