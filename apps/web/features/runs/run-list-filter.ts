// The runs list's filters from the page's URL (?commit=, ?branch=, ?label=key=value): checked with the API's own
// query schema, so the page and GET /api/v1/runs take and refuse the same filters.
import { runsQuery } from "@opsbench/api";
import { newestFirstCursorSchema, type PageKey } from "@opsbench/core";

/** Runs a page of the home list shows; "Older runs" pages through the rest. */
export const RUNS_PER_PAGE = 50;

export interface RunListFilter {
  commit?: string;
  branch?: string;
  label?: string;
}

type Query = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => {
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
};

/** The filters given (an empty box is none), checked; `error` names what was refused (the list then shows nothing). */
export function runListFilterFromQuery(query: Query): { filter: RunListFilter; given: boolean; error: string | null } {
  const filter: RunListFilter = {};
  for (const key of ["commit", "branch", "label"] as const) {
    const v = first(query[key]);
    if (v !== undefined) filter[key] = v;
  }
  const given = Object.keys(filter).length > 0;
  const parsed = runsQuery.safeParse(filter);
  if (parsed.success) return { filter, given, error: null };
  const error = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  return { filter, given, error };
}

/** The page of the list asked for (?cursor=, from an "Older runs" link); one that does not decode starts at the newest. */
export function runListCursorFromQuery(query: Query): PageKey | undefined {
  const r = newestFirstCursorSchema.safeParse(first(query.cursor));
  return r.success ? r.data : undefined;
}

/** The home list's address of a page (null: the newest), its filters kept. */
export function runListPageHref(filter: RunListFilter, cursor: string | null): string {
  const q = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => e[1] !== undefined));
  if (cursor) q.set("cursor", cursor);
  const s = q.toString();
  return s ? `/?${s}` : "/";
}
