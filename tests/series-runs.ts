// Imported runs that form a series (docs/trends.md), for the tests of series, trends and their notifications: each
// run a minute of k6 cells with latencies around a chosen level, the commit c<i>a0b1c2d3e4f, an hour apart.
import { bucketIndex, type K6LoadSecond, type ResultCell, seededRandom } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";

export const seriesCommit = (i: number) => `c${String(i).padStart(2, "0")}a0b1c2d3e4f`;
const T0 = Date.UTC(2026, 10, 1);

/** One second of requests at `startMs`, latencies around `ms` (as k6's cells hold them: a histogram per second). */
function second(startMs: number, values: number[]): ResultCell {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(bucketIndex(v), (counts.get(bucketIndex(v)) ?? 0) + 1);
  return {
    ts: new Date(startMs),
    name: "get",
    class: "2xx",
    count: values.length,
    failures: 0,
    sum: values.reduce((a, b) => a + b, 0),
    min: Math.min(...values),
    max: Math.max(...values),
    buckets: [...counts.entries()].sort((a, b) => a[0] - b[0]),
  };
}

/** An imported run of 60 s in `series`, 16 to 24 requests a second around `ms`; `dropping`: a tenth of its iterations dropped. */
export async function importSeriesRun(scope: WorkspaceScope, series: string, i: number, ms: number, dropping = false): Promise<string> {
  const rand = seededRandom(i);
  const start = T0 + i * 3600_000;
  const cells = Array.from({ length: 60 }, (_, s) =>
    second(
      start + s * 1000,
      Array.from({ length: 16 + Math.floor(rand() * 9) }, () => ms * (0.8 + 0.4 * rand())),
    ),
  );
  const load: K6LoadSecond[] = cells.map((c) => ({
    ts: c.ts,
    vus: 5,
    vusMax: 5,
    sent: 0,
    received: 0,
    iterations: c.count,
    dropped: dropping ? Math.ceil(c.count / 10) : 0,
  }));
  const run = await scope.importRun({
    name: `${series} ${i}`,
    loadStartedAt: new Date(start),
    loadFinishedAt: new Date(start + 60_000),
    durationSource: "k6-samples",
    cells,
    load,
    events: [],
    provenance: { commit: seriesCommit(i), branch: "main", series },
  });
  return run.id;
}
