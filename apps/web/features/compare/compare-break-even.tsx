"use client";

// Where serverless stops being cheaper: cost per hour at a steady rate of successful requests
// for a serverful target (a staircase: one more replica per replica capacity, measured only
// from runs that saturated) and a serverless one (every request billed), with the crossings
// named. Without a saturated run the serverful line ends where its runs' offered load did.
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { BreakEvenPair, CompareData } from "@/features/compare/compare-data";
import { ChartCard } from "@/components/charts/chart-card";
import { AXIS, GRID, TOOLTIP, groupColor } from "@/components/charts/palette";
import { fmtMoney, moneyUnit } from "@/lib/format";

// 3 significant digits without trailing zeros ("0.8", "12.5"), whole numbers from 100.
const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : String(Number(v.toPrecision(3))));

function BreakEvenChart({ pair, exportable }: { pair: BreakEvenPair; exportable: boolean }) {
  const r = pair.result;
  const hours = r.periodSeconds / 3600;
  // Drawn in the currency (a unit in cents shown in its currency), per hour.
  const money = moneyUnit(r.unit);
  const rows = r.points.map((p) => ({
    rps: p.rps,
    serverful: p.serverful === null ? null : p.serverful / hours / money.perUnit,
    serverless: p.serverless / hours / money.perUnit,
  }));
  const known = pair.capacityPerNodeRps !== null;
  const served = pair.capacity.servedRps;
  const verdict =
    r.breakEvenRps === null
      ? `${pair.serverless} stays cheaper up to ${fmt(known || served === null ? r.points.at(-1)!.rps : served)} successful req/s`
      : r.breakEvenRps === 0
        ? `${pair.serverless} is never cheaper than ${pair.serverful} here`
        : `${pair.serverless} stops being cheaper at ${fmt(r.breakEvenRps)} successful req/s`;
  const capacity = known ? (
    <>
      one more {pair.serverful} replica per {fmt(pair.capacityPerNodeRps!)} successful req/s, measured where its runs saturated:{" "}
      {pair.capacity.why}.
    </>
  ) : (
    <>
      <span data-testid="break-even-capacity-unknown" className="font-medium">
        offered load, capacity unknown
      </span>
      : {pair.serverful} served up to {served === null ? "?" : fmt(served)} successful req/s on {pair.capacity.replicas} replica
      {pair.capacity.replicas === 1 ? "" : "s"} without reaching a limit, and its cost beyond that is not drawn. Why: {pair.capacity.why}.
    </>
  );
  return (
    <ChartCard
      title={`Break-even: ${pair.serverful} vs ${pair.serverless} (${money.shown} per hour at a steady rate)`}
      fileName="break-even"
      testId="cmp-chart-break-even"
      exportable={exportable}
      points={rows.length}
      note={
        <span data-testid="break-even-verdict" data-rps={r.breakEvenRps ?? ""} data-capacity={pair.capacityPerNodeRps ?? "unknown"}>
          {verdict}; {capacity}
        </span>
      }
      legend={[
        { label: pair.serverful, color: groupColor(0) },
        { label: pair.serverless, color: groupColor(1) },
      ]}
      table={() => ({
        name: "break-even",
        columns: ["successful_rps", `${pair.serverful} ${money.shown} per hour`, `${pair.serverless} ${money.shown} per hour`],
        rows: rows.map((x) => [x.rps, x.serverful, x.serverless]),
      })}
    >
      <LineChart data={rows} margin={{ top: 4, right: 12, bottom: 14, left: 8 }}>
        <CartesianGrid stroke={GRID} vertical={false} />
        <XAxis
          dataKey="rps"
          type="number"
          domain={[0, "dataMax"]}
          tick={AXIS}
          tickLine={false}
          axisLine={{ stroke: GRID }}
          tickFormatter={(v: number) => `${fmt(v)}`}
          label={{ value: "steady load (successful requests per second)", position: "insideBottom", offset: -10, ...AXIS }}
        />
        <YAxis
          type="number"
          tick={AXIS}
          tickLine={false}
          axisLine={false}
          width={60}
          tickFormatter={(v: number) => fmt(v)}
          label={{ value: `cost (${money.shown} per hour)`, angle: -90, position: "insideLeft", style: { textAnchor: "middle" }, ...AXIS }}
        />
        <Tooltip
          {...TOOLTIP}
          labelFormatter={(v) => `${fmt(Number(v))} successful req/s`}
          formatter={(v) => (v == null ? "—" : `${fmtMoney(Number(v), money.shown)}/h`)}
        />
        <Line
          name={pair.serverful}
          dataKey="serverful"
          type="stepAfter"
          stroke={groupColor(0)}
          strokeWidth={1.5}
          dot={false}
          isAnimationActive={false}
          connectNulls={false}
        />
        <Line
          name={pair.serverless}
          dataKey="serverless"
          type="linear"
          stroke={groupColor(1)}
          strokeWidth={1.5}
          dot={false}
          isAnimationActive={false}
        />
      </LineChart>
    </ChartCard>
  );
}

export function CompareBreakEven({ data, exportable = true }: { data: CompareData; exportable?: boolean }) {
  if (data.breakEvens.length === 0) return null;
  return (
    <>
      {data.breakEvens.map((p) => (
        <BreakEvenChart key={`${p.serverful}\u0000${p.serverless}`} pair={p} exportable={exportable} />
      ))}
    </>
  );
}
