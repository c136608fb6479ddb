// A comparison's selection in a URL, so in-app comparison pages can be bookmarked
// and passed around: `?g=<label>:<id>,<id>&g=...` (one `g` per group, the label
// optional) or `?study=<id>`. Run ids never contain ":", so the label is what
// comes before the last one.
import type { ComparisonInput } from "@opsbench/api";

/** The query parameter that asks for flagged runs to be judged too. */
export const INCLUDE_FLAGGED_PARAM = "includeFlagged";

type Query = URLSearchParams | Record<string, string | string[] | undefined>;

const all = (q: Query, key: string): string[] => {
  if (q instanceof URLSearchParams) return q.getAll(key);
  const v = q[key];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/** The selection a query asks for, unvalidated (parse it with comparisonInputSchema); null when it asks for none. */
export function selectionFromQuery(q: Query): unknown {
  // `includeFlagged=1` (or true): flagged runs are judged too; any other value is handed on for the schema to refuse.
  const flag = all(q, INCLUDE_FLAGGED_PARAM)[0];
  const include =
    flag === undefined ? {} : { includeFlagged: flag === "1" || flag === "true" ? true : flag === "0" || flag === "false" ? false : flag };
  const study = all(q, "study")[0];
  if (study !== undefined) return { studyId: study, ...include };
  const groups = all(q, "g").filter((g) => g.trim() !== "");
  if (groups.length === 0) return null;
  return {
    ...include,
    groups: groups.map((g) => {
      const at = g.lastIndexOf(":");
      const label = at >= 0 ? g.slice(0, at).trim() : "";
      const ids = (at >= 0 ? g.slice(at + 1) : g)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      return label ? { label, runIds: ids } : { runIds: ids };
    }),
  };
}

/** The query string (without "?") for a selection. */
export function selectionToQuery(input: ComparisonInput): string {
  const q = new URLSearchParams();
  if ("studyId" in input) q.set("study", input.studyId);
  else for (const g of input.groups) q.append("g", `${g.label ? `${g.label}:` : ""}${g.runIds.join(",")}`);
  if (input.includeFlagged) q.set(INCLUDE_FLAGGED_PARAM, "1");
  return q.toString();
}
