// A zoom into a window of the charts over time, in the URL: `from` and `to`, seconds
// after the load start (a drag on a chart sets them; the page then re-queries that
// window at its finest resolution). Anything else in them is ignored.

export interface Zoom {
  fromSeconds: number;
  toSeconds: number;
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export function zoomFromQuery(q: Record<string, string | string[] | undefined>): Zoom | null {
  const from = Number(first(q.from));
  const to = Number(first(q.to));
  if (first(q.from) === undefined || first(q.to) === undefined) return null;
  if (!Number.isFinite(from) || !Number.isFinite(to) || from < 0 || to <= from) return null;
  return { fromSeconds: Math.floor(from), toSeconds: Math.ceil(to) };
}
