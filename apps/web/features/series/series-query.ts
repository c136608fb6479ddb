// The trend pages' queries: a series' key from its address, the latency metric asked (?metric=), a list page's
// cursor (?cursor=); each parsed with the API's own schemas, so the page and the API refuse the same input.
import { seriesPageQuery, seriesParams, seriesPointsQuery } from "@opsbench/api";
import type { SeriesKey } from "@opsbench/core";

type Query = Record<string, string | string[] | undefined>;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** A path segment decoded, or as it is when it does not decode (a stray "%"): never a thrown URIError (a 500). */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The series key of an address, or null (the page is then a 404). */
export function seriesKeyFromParam(key: string): SeriesKey | null {
  const r = seriesParams.safeParse({ key: decodedSegment(key) });
  return r.success ? r.data.key : null;
}

/** The latency metric asked for; an unknown one is reported rather than drawn. */
export function trendQuery(q: Query): { metric?: string; error: string | null } {
  const r = seriesPointsQuery.safeParse({ metric: first(q.metric) });
  return r.success
    ? { ...(r.data.metric ? { metric: r.data.metric } : {}), error: null }
    : { error: `metric: ${r.error.issues[0]?.message}` };
}

/** The series list's page (?cursor=); a cursor that does not decode starts at the first page. */
export function seriesListQuery(q: Query) {
  const r = seriesPageQuery.safeParse({ cursor: first(q.cursor) });
  return r.success ? r.data : {};
}

/** A series' trend page. */
export const seriesHref = (key: string, metric?: string) => `/series/${encodeURIComponent(key)}${metric ? `?metric=${metric}` : ""}`;
