import { describe, expect, it } from "vitest";
import {
  bytesToBase64,
  base64ToBytes,
  decodeBuckets,
  encodeBuckets,
  HTTP_SERIES_FOLDED,
  HttpSeriesCap,
  type K6HttpLine,
  OTHER_SERIES,
} from "../src";

const line = (s: number, name: string, values: number[], cls = "2xx"): K6HttpLine => {
  const buckets = new Map<number, number>();
  for (const v of values) buckets.set(Math.round(v), (buckets.get(Math.round(v)) ?? 0) + 1);
  return {
    t: "http",
    s,
    name,
    class: cls,
    n: values.length,
    fail: 0,
    sum: values.reduce((a, b) => a + b, 0),
    min: Math.min(...values),
    max: Math.max(...values),
    b: bytesToBase64(encodeBuckets([...buckets].sort((a, b) => a[0] - b[0]))),
  };
};
const countOf = (l: K6HttpLine) => decodeBuckets(base64ToBytes(l.b)).reduce((n, [, c]) => n + c, 0);

describe("HttpSeriesCap", () => {
  it("keeps the first max names and folds later ones into one 'other' line per second and class", () => {
    const cap = new HttpSeriesCap(2);
    const out = cap.apply([line(1, "a", [1]), line(1, "b", [2]), line(1, "c", [3, 4]), line(1, "d", [5]), line(1, "e", [9], "5xx")]);
    expect(out.map((l) => `${l.name}/${l.class}`)).toEqual(["a/2xx", "b/2xx", `${OTHER_SERIES}/2xx`, `${OTHER_SERIES}/5xx`]);
    const other = out[2]!;
    expect(other.n).toBe(3);
    expect(other.sum).toBe(12);
    expect([other.min, other.max]).toEqual([3, 5]);
    expect(countOf(other)).toBe(3);
    // Later flushes: known names stay, new ones fold.
    const next = cap.apply([line(2, "a", [1]), line(2, "f", [1])]);
    expect(next.map((l) => l.name)).toEqual(["a", OTHER_SERIES]);
    expect(cap.flag()).toEqual({
      code: HTTP_SERIES_FOLDED,
      message: expect.stringContaining("5 requests under 4 request names beyond the workspace's limit maxHttpSeries (2)"),
    });
  });

  it("flags nothing when every name fits", () => {
    const cap = new HttpSeriesCap(3);
    expect(cap.apply([line(1, "a", [1]), line(1, "b", [1])])).toHaveLength(2);
    expect(cap.flag()).toBeNull();
  });
});
