import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decodeBuckets, encodeBuckets } from "../src/histograms/histogram-encoding";
import { bucketIndex } from "../src/histograms/histogram";
import type { Buckets } from "../src/histograms/histogram";

const fixture = JSON.parse(readFileSync(path.join(import.meta.dirname, "fixtures/histogram-encoding.json"), "utf8")) as {
  vectors: Array<{ buckets: Buckets; hex: string }>;
  bucketIndexes: Array<[number, number]>;
};
const vectors = fixture.vectors;

describe("histogram encoding", () => {
  it("matches the vectors the Go output extension is tested against", () => {
    for (const v of vectors) {
      expect(Buffer.from(encodeBuckets(v.buckets)).toString("hex")).toBe(v.hex);
      expect(decodeBuckets(Buffer.from(v.hex, "hex"))).toEqual(v.buckets);
    }
  });

  it("puts values in the same buckets as the Go output extension, negative ones with their sign", () => {
    for (const [value, index] of fixture.bucketIndexes) expect([value, bucketIndex(value)]).toEqual([value, index]);
  });

  it("round-trips wide, sparse histograms and refuses truncated input", () => {
    const buckets: Buckets = [];
    for (let i = -900; i < 1500; i += 1 + (i % 7 === 0 ? 40 : 0)) buckets.push([i, 1 + ((((i * 7919) % 100_000) + 100_000) % 100_000)]);
    const bytes = encodeBuckets(buckets);
    expect(bytes.length).toBeLessThan(buckets.length * 4);
    expect(decodeBuckets(bytes)).toEqual(buckets);
    const cutMidVarint = encodeBuckets([[0, 300]]).slice(0, 2); // 300 takes two bytes; keep one
    expect(() => decodeBuckets(cutMidVarint)).toThrow(/truncated/);
  });
});
