// Colours of compared groups (by position) and shared chart styling.
export const GROUP_COLORS = [
  "#2563eb",
  "#dc2626",
  "#059669",
  "#d97706",
  "#7c3aed",
  "#db2777",
  "#0891b2",
  "#65a30d",
  "#4b5563",
  "#b45309",
  "#be185d",
  "#0f766e",
];
export const groupColor = (i: number) => GROUP_COLORS[i % GROUP_COLORS.length]!;

/** Line styles that tell percentiles (or repetitions) apart within one group's colour. */
export const DASHES = ["", "6 3", "2 3", "10 3 2 3"];

export const AXIS = { fontSize: 13, fill: "#71717a" };
export const GRID = "#e4e4e7";
export const CHART_HEIGHT = 240;
export const TOOLTIP = {
  contentStyle: { fontSize: 13, padding: "4px 8px", borderRadius: 4, borderColor: "#d4d4d8" },
  labelStyle: { color: "#52525b", marginBottom: 2 },
  itemStyle: { padding: 0 },
};
