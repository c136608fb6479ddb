// A table as the exports see it: named columns and rows of plain values.
// CSV follows RFC 4180 (quoted when needed, CRLF line ends); numbers keep full precision. A text cell that a
// spreadsheet would run as a formula (it begins with = + - @, a tab or a carriage return) gets a leading '.
export type CellValue = string | number | boolean | null;

export interface DataTable {
  /** File-name friendly, e.g. "series". */
  name: string;
  columns: string[];
  rows: CellValue[][];
}

const FORMULA_START = /^[=+\-@\t\r]/;

export const csvCell = (v: CellValue): string => {
  if (v === null || (typeof v === "number" && !Number.isFinite(v))) return "";
  // Numbers are data even when negative; text is what a name or a label could smuggle a formula in.
  const s = typeof v === "string" && FORMULA_START.test(v) ? `'${v}` : String(v);
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
};

export function toCsv(t: DataTable): string {
  return `${[t.columns, ...t.rows].map((r) => r.map(csvCell).join(",")).join("\r\n")}\r\n`;
}

/** The rows as objects keyed by column name. */
export function toRecords(t: DataTable): Array<Record<string, CellValue>> {
  return t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, r[i] ?? null])));
}

export function toJson(t: DataTable): string {
  return `${JSON.stringify(toRecords(t), null, 2)}\n`;
}
