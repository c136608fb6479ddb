import type { CheckSummary, CustomMetricSummary, RunSummary } from "@opsbench/core";
import { Panel, tableCell, tableHead } from "@/components/panel";
import { fmtCount, fmtPercent, NO_VALUE } from "@/lib/format";

type AppCheck = NonNullable<RunSummary["appChecks"]>[number];

/** Figures of a metric in its unit: ms with 2 decimals, bytes and plain numbers as they are (4 significant decimals at most). */
const fmtValue = (v: number | null | undefined, unit: string) => {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_VALUE;
  if (unit === "ms") return v.toFixed(2);
  return Number.isInteger(v) ? String(v) : String(Math.round(v * 1e4) / 1e4);
};

/** A tiny line of a per-bucket series (no axes), to see when a metric moved. */
function Spark({ values, color = "#2563eb" }: { values: number[]; color?: string }) {
  if (values.length < 2) return null;
  const max = Math.max(...values);
  const min = Math.min(0, ...values);
  const span = max - min || 1;
  const d = values
    .map((v, i) => `${((i / (values.length - 1)) * 76 + 2).toFixed(1)},${(18 - ((v - min) / span) * 16).toFixed(1)}`)
    .join(" ");
  return (
    <svg width="80" height="20" aria-hidden className="inline-block align-middle">
      <polyline points={d} fill="none" stroke={color} strokeWidth="1.25" />
    </svg>
  );
}

function Checks({ checks }: { checks: CheckSummary[] }) {
  const fails = checks.reduce((a, c) => a + c.fails, 0);
  return (
    <Panel
      className="min-w-0"
      title={`k6 checks (${checks.length})`}
      testId="run-checks"
      right={
        <span className={`text-2xs ${fails > 0 ? "text-red-600" : "text-emerald-700"}`}>
          {fails > 0 ? `${fmtCount(fails)} failed` : "all passed"}
        </span>
      }
    >
      <div className="overflow-x-auto">
        <table className="w-full text-xs">
          <thead className="border-b border-zinc-200 bg-zinc-50">
            <tr>
              <th className={tableHead}>Check</th>
              <th className={`${tableHead} text-right`}>Passes</th>
              <th className={`${tableHead} text-right`}>Fails</th>
              <th className={tableHead}>Pass rate</th>
              <th className={tableHead}>Over time</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {checks.map((c) => (
              <tr key={c.name} data-testid="run-check" data-check-name={c.name} data-passes={c.passes} data-fails={c.fails}>
                <td className={`${tableCell} max-w-xs break-words font-mono`}>{c.name}</td>
                <td className={`${tableCell} text-right font-mono tabular-nums text-emerald-700`}>{fmtCount(c.passes)}</td>
                <td className={`${tableCell} text-right font-mono tabular-nums ${c.fails > 0 ? "text-red-600" : "text-zinc-400"}`}>
                  {fmtCount(c.fails)}
                </td>
                <td className={tableCell}>
                  <span className="inline-flex items-center gap-2">
                    <span className="inline-block h-1.5 w-20 overflow-hidden rounded bg-red-200">
                      <span className="block h-full bg-emerald-500" style={{ width: `${c.passRate}%` }} />
                    </span>
                    <span className="font-mono tabular-nums">{fmtPercent(c.passRate)} %</span>
                  </span>
                </td>
                <td className={tableCell}>
                  <Spark values={c.points.map((p) => p.fails)} color="#ef4444" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}

/** The figures of one custom metric, as k6's end-of-test summary gives them. */
function figures(m: CustomMetricSummary): Array<[string, string]> {
  const u = m.unit;
  switch (m.kind) {
    case "counter":
      return [
        ["total", fmtValue(m.total, u)],
        ["per second", fmtValue(m.perSecond, "")],
      ];
    case "rate":
      return [
        ["rate", `${fmtPercent(m.rate)} %`],
        ["non-zero", `${fmtCount(m.passes)} of ${fmtCount(m.total)}`],
      ];
    case "trend":
      return [
        ["count", fmtCount(m.count)],
        ["avg", fmtValue(m.avg, u)],
        ["min", fmtValue(m.min, u)],
        ["med", fmtValue(m.med, u)],
        ["p90", fmtValue(m.p90, u)],
        ["p95", fmtValue(m.p95, u)],
        ["p99", fmtValue(m.p99, u)],
        ["max", fmtValue(m.max, u)],
      ];
    case "gauge":
      return [
        ["last", fmtValue(m.last, u)],
        ["min", fmtValue(m.min, u)],
        ["max", fmtValue(m.max, u)],
      ];
  }
}
const SERIES_OF: Record<CustomMetricSummary["kind"], string> = {
  counter: "sum per bucket",
  rate: "% per bucket",
  trend: "p95 per bucket",
  gauge: "last per bucket",
};

function CustomMetrics({ metrics }: { metrics: CustomMetricSummary[] }) {
  const order = ["trend", "counter", "rate", "gauge"];
  const sorted = [...metrics].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || a.name.localeCompare(b.name));
  return (
    <Panel className="min-w-0" title={`Custom metrics (${metrics.length})`} testId="run-custom-metrics">
      <ul className="divide-y divide-zinc-100">
        {sorted.map((m) => (
          <li
            key={`${m.kind}:${m.name}`}
            data-testid="run-custom-metric"
            data-metric-name={m.name}
            data-kind={m.kind}
            {...(m.kind === "trend"
              ? { "data-count": m.count, "data-avg": m.avg, "data-p95": m.p95 }
              : m.kind === "counter"
                ? { "data-total": m.total }
                : {})}
            className="flex flex-wrap items-center gap-x-4 gap-y-1 px-3 py-1.5 text-xs"
          >
            <span className="min-w-0 font-mono font-medium">{m.name}</span>
            <span className="rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-600">
              {m.kind}
              {m.unit ? `, ${m.unit}` : ""}
            </span>
            <dl className="flex flex-wrap gap-x-3 font-mono tabular-nums">
              {figures(m).map(([k, v]) => (
                <div key={k} className="flex gap-1">
                  <dt className="text-zinc-500">{k}</dt>
                  <dd data-figure={k}>{v}</dd>
                </div>
              ))}
            </dl>
            <span className="ml-auto inline-flex items-center gap-1 text-2xs text-zinc-400" title={SERIES_OF[m.kind]}>
              <Spark values={m.points.map((p) => p.value)} />
            </span>
          </li>
        ))}
      </ul>
    </Panel>
  );
}

/** A violation's field as a cell: numbers and text as they are, anything else as compact JSON. */
const cellText = (v: unknown) => (v === undefined ? "" : typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));

/** What the app says is wrong (the shop: a product's stock, an order's total...), one row each, a column per field. */
function Violations({ violations, open }: { violations: unknown[]; open: boolean }) {
  const rows = violations.map((v) => (v && typeof v === "object" ? (v as Record<string, unknown>) : { value: v }));
  // What a violation is about (its kind, the product's id) before its figures.
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const isText = (k: string) => rows.some((r) => typeof r[k] === "string");
  const columns = [...keys.filter(isText), ...keys.filter((k) => !isText(k))];
  return (
    <details className="mt-1" open={open} data-testid="app-check-violations">
      <summary className="cursor-pointer text-2xs text-zinc-500">
        violations ({violations.length}
        {violations.length >= 20 ? ", the first 20" : ""})
      </summary>
      <div className="mt-1 max-h-48 overflow-auto rounded border border-zinc-100">
        <table className="w-full text-2xs">
          <thead className="border-b border-zinc-200 bg-zinc-50">
            <tr>
              {columns.map((c) => (
                <th key={c} className={tableHead}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {rows.map((r, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c} className={`${tableCell} font-mono tabular-nums`}>
                    {cellText(r[c])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/** The checks the app itself answers after the load (the shop's consistency), each passed or failed with its message. */
function AppChecks({ checks }: { checks: AppCheck[] }) {
  const failed = checks.filter((c) => !c.ok).length;
  return (
    <Panel
      className="min-w-0"
      title="App checks after the load"
      testId="run-app-checks"
      right={
        <span data-testid="app-checks-state" className={`text-2xs ${failed > 0 ? "text-red-600" : "text-emerald-700"}`}>
          {failed > 0 ? `${failed} failed` : "all passed"}
        </span>
      }
    >
      <ul className="divide-y divide-zinc-100">
        {checks.map((c) => {
          const violations = (c.detail as { violations?: unknown[] } | undefined)?.violations;
          return (
            <li key={c.name} data-testid={`app-check-${c.name}`} data-ok={c.ok} className="px-3 py-2 text-xs">
              <div className="flex flex-wrap items-center gap-2">
                <span
                  className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-2xs font-semibold ${
                    c.ok ? "bg-emerald-50 text-emerald-700 ring-1 ring-emerald-200" : "bg-red-50 text-red-700 ring-1 ring-red-200"
                  }`}
                >
                  <span aria-hidden>{c.ok ? "✓" : "✗"}</span>
                  <span data-testid="app-check-state">{c.ok ? "passed" : "failed"}</span>
                </span>
                <span data-testid="app-check-name" className="font-mono font-medium">
                  {c.name}
                </span>
                <span className="text-zinc-400">·</span>
                <span data-testid="app-check-message" className={c.ok ? "text-zinc-600" : "text-red-700"}>
                  {c.message}
                </span>
              </div>
              {Array.isArray(violations) && violations.length > 0 && <Violations violations={violations} open={!c.ok} />}
            </li>
          );
        })}
      </ul>
    </Panel>
  );
}

/** The k6 checks, the script's custom metrics and the app's own checks; renders nothing when the run has none. */
export function RunChecks({
  checks,
  customMetrics,
  appChecks,
}: {
  checks: CheckSummary[];
  customMetrics: CustomMetricSummary[];
  appChecks: AppCheck[] | undefined;
}) {
  if (checks.length === 0 && customMetrics.length === 0 && !appChecks?.length) return null;
  return (
    <div className="grid grid-cols-1 gap-3 xl:grid-cols-2">
      {appChecks && appChecks.length > 0 && (
        <div id="app-checks" className="xl:col-span-2">
          <AppChecks checks={appChecks} />
        </div>
      )}
      {checks.length > 0 && <Checks checks={checks} />}
      {customMetrics.length > 0 && <CustomMetrics metrics={customMetrics} />}
    </div>
  );
}
