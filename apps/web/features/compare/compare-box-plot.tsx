"use client";

// Box plots across repetitions, one panel per metric, one box per group: the box
// spans the quartiles, the line inside is the median, the whiskers reach min and
// max, and every repetition is a dot. Plain SVG (Recharts has no box plot), so
// the export takes it as it is. Drawn in the browser, like the Recharts charts: the
// page's HTML carries the data once (in the client props), not also as 20 KB of SVG.
import type { CompareData } from "@/features/compare/compare-data";
import { boxStats, comparisonTable, repetitionValues } from "@/lib/export/comparison-tables";
import { ChartCard } from "@/components/charts/chart-card";
import { useInBrowser } from "@/components/use-in-browser";
import { groupColor } from "@/components/charts/palette";

const PANEL_W = 200;
const H = 230;
const TOP = 22;
const BOTTOM = 34;
const LEFT = 46;
const RIGHT = 8;

function niceTicks(lo: number, hi: number, n = 4): number[] {
  const span = hi - lo || Math.abs(hi) || 1;
  const step0 = span / n;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) ?? step0;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(10)));
  return out;
}

/** SVG coordinates to a tenth of a unit: finer is invisible and only makes the page bigger. */
const px = (v: number) => Math.round(v * 10) / 10;

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const short = (s: string, n = 16) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function BoxPlotChart({ data, exportable }: { data: CompareData; exportable?: boolean }) {
  const metrics = repetitionValues(data);
  const width = PANEL_W * metrics.length;
  const count = metrics.reduce((s, m) => s + m.groups.filter((g) => g.runs.length > 0).length, 0);
  const inBrowser = useInBrowser();
  return (
    <ChartCard
      title="Across repetitions: box plots per metric (box = quartiles, line = median, whiskers = min–max, dots = runs)"
      testId="cmp-chart-box"
      fileName="box-plots"
      points={count}
      recharts={false}
      exportable={exportable}
      height={H}
      legend={data.groups.map((g, i) => ({ label: g.label, color: groupColor(i) }))}
      table={() => comparisonTable(data, "box")}
      note={
        data.groups.some((g) => g.runs.filter((r) => r.summary).length < 3)
          ? "With fewer than 3 repetitions a box says little: it is drawn from the runs there are."
          : undefined
      }
    >
      {!inBrowser ? (
        <div style={{ height: H }} />
      ) : (
        <svg
          data-export-svg
          viewBox={`0 0 ${width} ${H}`}
          width="100%"
          role="img"
          aria-label="box plots across repetitions"
          style={{ maxHeight: H * 1.4 }}
          fontFamily="ui-sans-serif, system-ui, sans-serif"
        >
          {metrics.map(({ metric, groups }, mi) => {
            const x0 = mi * PANEL_W;
            const values = groups.flatMap((g) => g.runs.map((r) => r.value));
            let lo = values.length ? Math.min(...values) : 0;
            let hi = values.length ? Math.max(...values) : 1;
            const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.05 || 1;
            lo -= pad;
            hi += pad;
            if (metric.unit === "%") hi = Math.min(hi, 100.5);
            if (lo < 0 && Math.min(...values) >= 0) lo = 0;
            const ticks = niceTicks(lo, hi);
            const y = (v: number) => px(TOP + (H - TOP - BOTTOM) * (1 - (v - lo) / (hi - lo)));
            const slot = (PANEL_W - LEFT - RIGHT) / Math.max(1, groups.length);
            const boxW = px(Math.min(34, slot * 0.55));
            return (
              <g key={metric.key} data-metric={metric.key}>
                <text x={x0 + 6} y={13} fontSize={11} fontWeight={600} fill="#3f3f46">
                  {/* From the panel's edge, not the axis: the catalog's longer labels ("p99 latency, all responses") fit. */}
                  <title>{`${metric.label} (${metric.unit})`}</title>
                  {short(`${metric.label} (${metric.unit})`, 34)}
                </text>
                {ticks.map((t) => (
                  <g key={t}>
                    <line x1={x0 + LEFT} x2={x0 + PANEL_W - RIGHT} y1={y(t)} y2={y(t)} stroke="#e4e4e7" />
                    <text x={x0 + LEFT - 4} y={px(y(t) + 3.5)} fontSize={12} textAnchor="end" fill="#71717a">
                      {fmt(t)}
                    </text>
                  </g>
                ))}
                {groups.map((g, gi) => {
                  const cx = px(x0 + LEFT + slot * (gi + 0.5));
                  const b = boxStats(g.runs.map((r) => r.value));
                  const color = groupColor(gi);
                  return (
                    <g key={gi}>
                      <text x={cx} y={H - BOTTOM + 14} fontSize={12} textAnchor="middle" fill="#52525b">
                        <title>{g.label}</title>
                        {short(g.label, Math.max(6, Math.floor(slot / 6)))}
                      </text>
                      <text x={cx} y={H - BOTTOM + 26} fontSize={12} textAnchor="middle" fill="#71717a">
                        n={g.runs.length}
                      </text>
                      {b && (
                        // The box's parts share its colour and line width (inherited from this group).
                        <g stroke={color} strokeWidth={1.2} fill={color}>
                          <line className="cmp-whisker" x1={cx} x2={cx} y1={y(b.min)} y2={y(b.max)} />
                          <line x1={px(cx - boxW / 4)} x2={px(cx + boxW / 4)} y1={y(b.min)} y2={y(b.min)} />
                          <line x1={px(cx - boxW / 4)} x2={px(cx + boxW / 4)} y1={y(b.max)} y2={y(b.max)} />
                          <rect
                            className="cmp-box"
                            data-group={gi}
                            data-metric={metric.key}
                            data-median={b.median}
                            data-q1={b.q1}
                            data-q3={b.q3}
                            x={px(cx - boxW / 2)}
                            width={boxW}
                            y={y(b.q3)}
                            height={px(Math.max(1.5, y(b.q1) - y(b.q3)))}
                            fillOpacity={0.18}
                          />
                          <line
                            className="cmp-median"
                            x1={px(cx - boxW / 2)}
                            x2={px(cx + boxW / 2)}
                            y1={y(b.median)}
                            y2={y(b.median)}
                            strokeWidth={2.2}
                          />
                          {g.runs.map((r, ri) => (
                            <circle
                              key={r.id}
                              className="cmp-box-point"
                              cx={px(cx + boxW / 2 + 6 + (ri % 3) * 3)}
                              cy={y(r.value)}
                              r={2.4}
                              stroke="none"
                            >
                              <title>{`${g.label} #${r.repetition}: ${fmt(r.value)} ${metric.unit}`}</title>
                            </circle>
                          ))}
                        </g>
                      )}
                    </g>
                  );
                })}
              </g>
            );
          })}
        </svg>
      )}
    </ChartCard>
  );
}
