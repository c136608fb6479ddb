// A stored comparison is found by the version of the verdict code too: one made by older verdict code is not
// served again (issue 33).
import { VERDICT_VERSION } from "@opsbench/core";
import { describe, expect, it } from "vitest";
import { comparisonCacheKey } from "../packages/db/src/comparisons/comparison";

describe("the stored comparison's cache key", () => {
  const groups = [{ runIds: ["a"] }, { runIds: ["b"] }];
  const versions: Array<[string, number, ...string[]]> = [
    ["a", 1_700_000_000_000],
    ["b", 1_700_000_000_500],
  ];

  it("is the same for the same selection, rollups and verdict code", () => {
    expect(comparisonCacheKey(groups, {}, versions)).toBe(comparisonCacheKey(groups, {}, versions, VERDICT_VERSION));
  });

  it("misses when the verdict version changes", () => {
    expect(comparisonCacheKey(groups, {}, versions, VERDICT_VERSION + 1)).not.toBe(comparisonCacheKey(groups, {}, versions));
  });
});
