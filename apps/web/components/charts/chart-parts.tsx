// Pieces the run and comparison charts share. Recharts finds its axes and series among a chart's direct
// children by type, so these are elements (or functions returning one), not wrapping components.
import { CartesianGrid, Line, XAxis } from "recharts";
import { AXIS, GRID } from "./palette";

export const CHART_MARGIN = { top: 4, right: 8, bottom: 0, left: 0 };

/** Horizontal grid lines only. */
export const horizontalGrid = <CartesianGrid stroke={GRID} vertical={false} />;

/** x = seconds from the load's start, one category per bucket. */
export const secondsAxis = (
  <XAxis
    dataKey="offsetSeconds"
    tick={AXIS}
    tickLine={false}
    axisLine={{ stroke: GRID }}
    tickFormatter={(v: number) => `${v}s`}
    minTickGap={16}
  />
);

/** x = seconds from the load's start on a number scale: for downsampled or zoomed series, whose points are not evenly spaced. */
export const numericSecondsAxis = (
  <XAxis
    dataKey="offsetSeconds"
    type="number"
    domain={["dataMin", "dataMax"]}
    tick={AXIS}
    tickLine={false}
    axisLine={{ stroke: GRID }}
    tickFormatter={(v: number) => `${v}s`}
    minTickGap={16}
  />
);

/** Goodput axis: 100 at the top, the floor a little under the worst bucket (so a dip is visible). */
export const goodputFloor = (dataMin: number) => Math.max(0, Math.floor(dataMin / 5) * 5 - 5);

/** A line with a dot per bucket (none where the bucket has no value; tests count `.recharts-line-dot`), or without dots for long series. */
export function bucketLine({
  key,
  name,
  dataKey,
  stroke,
  strokeWidth = 1.5,
  dotRadius = 2.5,
  strokeDasharray,
  dots = true,
}: {
  key?: string | number;
  name?: string;
  dataKey: string;
  stroke: string;
  strokeWidth?: number;
  dotRadius?: number;
  strokeDasharray?: string;
  /** False for long series: a dot per point would hide the line. */
  dots?: boolean;
}) {
  return (
    <Line
      key={key}
      name={name}
      type="linear"
      dataKey={dataKey}
      stroke={stroke}
      strokeDasharray={strokeDasharray}
      strokeWidth={strokeWidth}
      dot={dots ? { r: dotRadius, strokeWidth: 1 } : false}
      // Downsampled series keep each metric's own points: the line joins them across the others' rows.
      connectNulls={!dots}
      activeDot={{ r: 4 }}
      isAnimationActive={false}
    />
  );
}
