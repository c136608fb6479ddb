// The workspace's "http series per run" limit (maxHttpSeries), applied to the k6 output's http lines as the worker
// stores them: the first `max` distinct request names keep their own series; requests under any later name fold
// into one "other" series (lines of the same second and status class merged, histograms added), so a script that
// requests a unique URL each time writes at most max + 1 series a second, not one row per request. The run is
// flagged with what was folded.
import { base64ToBytes, bytesToBase64 } from "../histograms/base64-bytes";
import { decodeBuckets, encodeBuckets } from "../histograms/histogram-encoding";
import type { Buckets } from "../histograms/histogram";
import type { K6HttpLine } from "./k6-output-format";
import type { ValidityFlag } from "../runs/validity-flags";

export const OTHER_SERIES = "other";
export const HTTP_SERIES_FOLDED = "http-series-folded";

/** Folded names are counted exactly up to this many (memory stays bounded whatever the script requests). */
const COUNTED_FOLDED_NAMES = 100_000;
const EXAMPLES = 3;

function mergeBuckets(a: Buckets, b: Buckets): Buckets {
  const sum = new Map(a);
  for (const [i, c] of b) sum.set(i, (sum.get(i) ?? 0) + c);
  return [...sum].sort((x, y) => x[0] - y[0]);
}

function mergeLines(into: K6HttpLine, line: K6HttpLine): K6HttpLine {
  const buckets = mergeBuckets(decodeBuckets(base64ToBytes(into.b)), decodeBuckets(base64ToBytes(line.b)));
  return {
    ...into,
    n: into.n + line.n,
    fail: into.fail + line.fail,
    sum: into.sum + line.sum,
    min: into.n === 0 ? line.min : line.n === 0 ? into.min : Math.min(into.min, line.min),
    max: Math.max(into.max, line.max),
    b: bytesToBase64(encodeBuckets(buckets)),
  };
}

export class HttpSeriesCap {
  private readonly kept = new Set<string>();
  private readonly folded = new Set<string>();
  private readonly examples: string[] = [];
  foldedRequests = 0;

  constructor(readonly max: number) {}

  /** The lines with names beyond the cap renamed "other", and the "other" lines of one second and class merged. */
  apply(lines: K6HttpLine[]): K6HttpLine[] {
    const out: K6HttpLine[] = [];
    const other = new Map<string, K6HttpLine>();
    for (const line of lines) {
      if (!this.kept.has(line.name) && this.kept.size < this.max) this.kept.add(line.name);
      if (this.kept.has(line.name)) {
        out.push(line);
        continue;
      }
      if (this.folded.size < COUNTED_FOLDED_NAMES) this.folded.add(line.name);
      if (this.examples.length < EXAMPLES && !this.examples.includes(line.name)) this.examples.push(line.name);
      this.foldedRequests += line.n;
      const key = `${line.s}\u0000${line.class}`;
      const renamed = { ...line, name: OTHER_SERIES };
      const before = other.get(key);
      other.set(key, before ? mergeLines(before, renamed) : renamed);
    }
    return [...out, ...other.values()];
  }

  /** The run's flag when anything was folded. */
  flag(): ValidityFlag | null {
    if (this.folded.size === 0) return null;
    const names = this.folded.size >= COUNTED_FOLDED_NAMES ? `more than ${COUNTED_FOLDED_NAMES}` : String(this.folded.size);
    const clip = (n: string) => (n.length > 60 ? `${n.slice(0, 60)}...` : n);
    return {
      code: HTTP_SERIES_FOLDED,
      message:
        `${this.foldedRequests} requests under ${names} request names beyond the workspace's limit maxHttpSeries (${this.max}) ` +
        `were folded into one "${OTHER_SERIES}" series (e.g. ${this.examples.map(clip).join(", ")}); per-name results cover only the first ${this.max} names`,
    };
  }
}
