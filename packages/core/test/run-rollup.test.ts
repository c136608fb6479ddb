import { describe, expect, it } from "vitest";
import {
  alignToLoadStart,
  bucketize,
  emptyHistogram,
  lttbIndexes,
  pageBucketSeconds,
  recordValue,
  runPageSeries,
  runPageSeriesSchema,
  runRollup,
  runRollupWindowsSchema,
  seededRandom,
  summarizeAligned,
  summarizeRollups,
  toPart,
  verdictWindows,
  windowsOfRollup,
  type ResultCell,
} from "../src";

/** A run's per-second cells: two request names, a few 5xx, a slow minute. */
function runCells(seed: number, seconds: number, start: Date): ResultCell[] {
  const rand = seededRandom(seed);
  const cells: ResultCell[] = [];
  for (let s = 0; s < seconds; s++)
    for (const name of ["GET /a", "POST /b"])
      for (const cls of ["2xx", "5xx"]) {
        const h = emptyHistogram();
        const n = cls === "2xx" ? 5 + Math.floor(rand() * 5) : rand() < 0.1 ? 1 : 0;
        for (let i = 0; i < n; i++) recordValue(h, (s >= 100 && s < 160 ? 40 : 8) * (0.5 + rand()));
        if (n) cells.push({ ts: new Date(start.getTime() + s * 1000), name, class: cls, failures: cls === "5xx" ? n : 0, ...toPart(h) });
      }
  return cells;
}

describe("run rollups", () => {
  it("give a comparison the same numbers as every second of its runs", () => {
    const starts = [new Date("2026-01-01T00:00:00.400Z"), new Date("2026-01-02T10:00:00Z"), new Date("2026-01-03T10:00:07Z")];
    const runs = starts.map((start, i) => runCells(i + 1, 300 + 17 * i, start));
    const rollups = runs.map((cells, i) => runRollup(cells, starts[i]!));
    const aligned = runs.map((cells, i) => alignToLoadStart(cells, starts[i]!));
    const fromSeconds = summarizeAligned(aligned, 951);
    const fromRollups = summarizeRollups(
      rollups.map((r) => ({
        whole: r.cells[0],
        tens: r.cells[10],
        windows: windowsOfRollup(r.windows),
        maxThroughput: r.windows.maxThroughput,
      })),
      951,
    );
    expect(fromRollups.series).toEqual(fromSeconds.series);
    expect(fromRollups.distribution).toEqual(fromSeconds.distribution);
    expect(fromRollups.byRequest).toEqual(fromSeconds.byRequest);
    expect(fromRollups.merged).toEqual(fromSeconds.merged);
    expect(windowsOfRollup(rollups[0]!.windows)).toEqual(verdictWindows(aligned[0]!));
    // A group of one run takes its stored 10 s series (through JSON) instead of its 10 s cells: the same series.
    const stored = runRollupWindowsSchema.parse(JSON.parse(JSON.stringify(rollups[1]!.windows)));
    const alone = summarizeRollups(
      [{ whole: rollups[1]!.cells[0], tens: [], series: windowsOfRollup(stored.tenSecondSeries!), windows: [], maxThroughput: null }],
      317,
    );
    expect(alone.series).toEqual(summarizeAligned([aligned[1]!], 317).series);
    expect(rollups[1]!.cells[60].length).toBeLessThan(rollups[1]!.cells[10].length);
    // The stored page series gives back the buckets a page drew from the cells: 10 s for a short run, 1 min for a day.
    const page = runPageSeries(rollups[0]!.cells[pageBucketSeconds(300)], pageBucketSeconds(300));
    expect(page.bucketSeconds).toBe(10);
    expect(windowsOfRollup(runPageSeriesSchema.parse(JSON.parse(JSON.stringify(page))))).toEqual(
      bucketize(rollups[0]!.cells[10], new Date(0), 10),
    );
    expect(pageBucketSeconds(86_400)).toBe(60);
  });
});

describe("largest-triangle-three-buckets", () => {
  it("keeps the first, the last and a spike's peak, within the budget", () => {
    const x = Array.from({ length: 8640 }, (_, i) => i * 10);
    const y = x.map((_, i) => (i === 5000 ? 900 : 10 + Math.sin(i / 50)));
    const kept = lttbIndexes(x, y, 300);
    expect(kept.length).toBe(300);
    expect(kept[0]).toBe(0);
    expect(kept.at(-1)).toBe(8639);
    expect(kept).toContain(5000);
    expect(lttbIndexes(x.slice(0, 50), y.slice(0, 50), 300)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});
