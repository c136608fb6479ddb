// Folds a stock k6's JSON output (`k6 run --out json=...`: one Metric or Point line per metric and sample, k6's documented
// format) into the lines opsbench-engine writes (k6-output-format.ts: meta, http, load, metric, end), as it comes: a
// second is handed over once it has settled (SETTLE_SECONDS after it, on k6's clock and the caller's, whichever is
// behind), so a run stores its results while it goes, not at its end. Used by the runner for an admin's own k6
// (OPSBENCH_K6_BINARY) and by `opsbench ingest` (k6 piped into the CLI). Pure: the caller reads and feeds lines.
// Memory holds the unsettled seconds only. Cells are those of the k6 file import (k6-import.ts) and of the engine:
// second x request name x status class x failed, a histogram each; checks split by check name; a script's own
// metrics by their declared type. A sample of a second already handed over (very late) makes another line of that
// second, which readers add up.
import { bytesToBase64 } from "../histograms/base64-bytes";
import { emptyHistogram, HISTOGRAM_ALPHA, HISTOGRAM_MIN_VALUE_MS, type Histogram, recordValue, toPart } from "../histograms/histogram";
import { encodeBuckets } from "../histograms/histogram-encoding";
import { httpCellOf, type K6MetricDeclaration, type K6Sample, parseK6JsonRecord } from "./k6-import";
import {
  type K6HttpLine,
  type K6LoadLine,
  type K6MetricLine,
  type K6OutputLine,
  OTHER_METRIC_SERIES,
  seriesNameWithin,
} from "./k6-output-format";
import type { MetricKind } from "../runs/metric-summary";
import type { ThresholdSources } from "./k6-merged-thresholds";

/** A second is handed over this long after its end: k6 writes samples in batches, at most a second or so late. */
export const SETTLE_SECONDS = 2;

/** The output format version the folded lines follow (metric lines included). */
const FORMAT_VERSION = 4;

/** Names kept per metric kind (as the engine does): further ones are counted under OTHER_NAME. */
const MAX_SERIES_PER_KIND = 500;
const OTHER_NAME = OTHER_METRIC_SERIES;

const LOAD_METRICS = new Set(["vus", "vus_max", "data_sent", "data_received", "iterations", "dropped_iterations"]);

/** k6's built-in metrics and its protocol modules' families: everything else is a script's own. */
const BUILTIN = new Set([
  "vus",
  "vus_max",
  "iterations",
  "iteration_duration",
  "dropped_iterations",
  "checks",
  "group_duration",
  "data_sent",
  "data_received",
  "http_reqs",
  "http_req_failed",
  "http_req_duration",
  "http_req_blocked",
  "http_req_connecting",
  "http_req_tls_handshaking",
  "http_req_sending",
  "http_req_waiting",
  "http_req_receiving",
]);
const isBuiltin = (name: string) => BUILTIN.has(name) || /^(ws|grpc|browser)_/.test(name);
const KINDS = new Set<string>(["counter", "rate", "trend", "gauge"]);

interface HttpCell {
  second: number;
  name: string;
  class: string;
  failed: boolean;
  h: Histogram;
}

interface MetricCell {
  second: number;
  kind: MetricKind;
  name: string;
  unit: string;
  n: number;
  pass: number;
  sum: number;
  min: number;
  max: number;
  last: number;
  lastAt: number;
  h: Histogram | null;
}

const encode = (h: Histogram) => bytesToBase64(encodeBuckets(toPart(h).buckets));
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface K6JsonStreamOptions {
  /** Send the thresholds k6's Metric lines declare on a "plan" line (for an external run's merged judgement). */
  thresholds?: boolean;
}

export function k6JsonStream(opts: K6JsonStreamOptions = {}) {
  const http = new Map<string, HttpCell>();
  const load = new Map<number, K6LoadLine>();
  const metrics = new Map<string, MetricCell>();
  const declared = new Map<string, K6MetricDeclaration>();
  const seriesNames = new Map<string, Set<string>>();
  const thresholds: ThresholdSources = {};
  let thresholdsChanged = false;
  let metaSent = false;
  let samples = 0;
  let requests = 0;
  let firstMs = Number.POSITIVE_INFINITY;
  let lastMs = Number.NEGATIVE_INFINITY;
  let latestMs = Number.NEGATIVE_INFINITY;

  const seriesName = (kind: string, name: string) => {
    let seen = seriesNames.get(kind);
    if (!seen) {
      seen = new Set();
      seriesNames.set(kind, seen);
    }
    if (!seen.has(name)) {
      if (seen.size >= MAX_SERIES_PER_KIND) name = OTHER_NAME;
      seen.add(name);
    }
    return name;
  };

  const addMetric = (second: number, kind: MetricKind, rawName: string, unit: string, s: K6Sample) => {
    const name = seriesName(kind, seriesNameWithin(rawName, OTHER_NAME));
    const key = `${second}\u0000${kind}\u0000${name}`;
    let c = metrics.get(key);
    if (!c) {
      c = {
        second,
        kind,
        name,
        unit,
        n: 0,
        pass: 0,
        sum: 0,
        min: Number.POSITIVE_INFINITY,
        max: Number.NEGATIVE_INFINITY,
        last: 0,
        lastAt: Number.NEGATIVE_INFINITY,
        h: kind === "trend" ? emptyHistogram() : null,
      };
      metrics.set(key, c);
    }
    c.n++;
    c.sum += s.value;
    c.min = Math.min(c.min, s.value);
    c.max = Math.max(c.max, s.value);
    if (s.timeMs >= c.lastAt) {
      c.last = s.value;
      c.lastAt = s.timeMs;
    }
    if (s.value !== 0) c.pass++;
    if (c.h) recordValue(c.h, s.value);
  };

  const take = (s: K6Sample) => {
    samples++;
    const second = Math.floor(s.timeMs / 1000);
    if (s.timeMs < firstMs) firstMs = s.timeMs;
    if (s.timeMs > latestMs) latestMs = s.timeMs;
    // k6's once-a-second VU ticks go on after the test: they do not end it.
    if (s.timeMs > lastMs && s.metric !== "vus" && s.metric !== "vus_max") lastMs = s.timeMs;
    if (s.metric === "http_req_duration") {
      requests++;
      const { key, name, cls, failed } = httpCellOf(s, second);
      let cell = http.get(key);
      if (!cell) {
        cell = { second, name, class: cls, failed, h: emptyHistogram() };
        http.set(key, cell);
      }
      recordValue(cell.h, s.value);
    } else if (LOAD_METRICS.has(s.metric)) {
      let l = load.get(second);
      if (!l) {
        l = { t: "load", s: second, vus: 0, vusMax: 0, sent: 0, received: 0, iterations: 0, dropped: 0 };
        load.set(second, l);
      }
      if (s.metric === "vus") l.vus = Math.max(l.vus, s.value);
      else if (s.metric === "vus_max") l.vusMax = Math.max(l.vusMax, s.value);
      else if (s.metric === "data_sent") l.sent += s.value;
      else if (s.metric === "data_received") l.received += s.value;
      else if (s.metric === "iterations") l.iterations += s.value;
      else l.dropped += s.value;
    } else if (s.metric === "checks") {
      addMetric(second, "check", s.tag("check") ?? "", "", s);
    } else if (!isBuiltin(s.metric)) {
      const d = declared.get(s.metric);
      // A sample of a metric k6 never declared has no known kind: it is passed over, as k6 always declares first.
      if (d && KINDS.has(d.metricType))
        addMetric(second, d.metricType as MetricKind, s.metric, d.contains === "time" ? "ms" : d.contains === "data" ? "B" : "", s);
    }
  };

  /** The lines of every cell of seconds up to `cutoff` (all when null), in order, removed from memory. */
  const due = (cutoff: number | null): K6OutputLine[] => {
    const out: K6OutputLine[] = [];
    const ripe = (second: number) => cutoff === null || second <= cutoff;
    const httpDue = [...http.entries()].filter(([, c]) => ripe(c.second));
    httpDue.sort(
      ([, a], [, b]) => a.second - b.second || cmp(a.name, b.name) || cmp(a.class, b.class) || Number(a.failed) - Number(b.failed),
    );
    for (const [key, c] of httpDue) {
      const line: K6HttpLine = {
        t: "http",
        s: c.second,
        name: c.name,
        class: c.class,
        n: c.h.count,
        fail: c.failed ? c.h.count : 0,
        sum: c.h.sum,
        min: c.h.min,
        max: c.h.max,
        b: encode(c.h),
      };
      out.push(line);
      http.delete(key);
    }
    for (const [second, l] of [...load.entries()].filter(([s]) => ripe(s)).sort(([a], [b]) => a - b)) {
      out.push(l);
      load.delete(second);
    }
    const metricDue = [...metrics.entries()].filter(([, c]) => ripe(c.second));
    metricDue.sort(([, a], [, b]) => a.second - b.second || cmp(a.kind, b.kind) || cmp(a.name, b.name));
    for (const [key, c] of metricDue) {
      const line: K6MetricLine = {
        t: "metric",
        s: c.second,
        kind: c.kind,
        name: c.name,
        unit: c.unit,
        n: c.n,
        pass: c.pass,
        sum: c.sum,
        min: c.min,
        max: c.max,
        last: c.last,
        ...(c.h ? { b: encode(c.h) } : {}),
      };
      out.push(line);
      metrics.delete(key);
    }
    return out;
  };

  const head = (): K6OutputLine[] => {
    const out: K6OutputLine[] = [];
    if (!metaSent) {
      metaSent = true;
      out.push({ t: "meta", version: FORMAT_VERSION, alpha: HISTOGRAM_ALPHA, minValueMs: HISTOGRAM_MIN_VALUE_MS });
    }
    if (thresholdsChanged) {
      thresholdsChanged = false;
      // Stock k6 says nothing of its plan: the numbers are unknown (0); the line carries the thresholds only.
      out.push({ t: "plan", maxVUs: 0, durationSeconds: 0, peakArrivalRate: 0, thresholds: { ...thresholds } });
    }
    return out;
  };

  return {
    /**
     * Feeds one line of k6's JSON output (without its line ending). Returns null when it was taken (a blank line
     * carries nothing), else why it is not a k6 JSON line.
     */
    line(text: string): string | null {
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (text.trim() === "") return null;
      const r = parseK6JsonRecord(text);
      if (typeof r === "string") return r;
      if (r.type === "Point") take(r.sample);
      else {
        declared.set(r.metric.name, r.metric);
        if (opts.thresholds && r.metric.thresholds.length) {
          const before = thresholds[r.metric.name] ?? [];
          const merged = [...new Set([...before, ...r.metric.thresholds])];
          if (merged.length !== before.length) {
            thresholds[r.metric.name] = merged;
            thresholdsChanged = true;
          }
        }
      }
      return null;
    },
    /**
     * The lines of the seconds settled by `nowMs` (the caller's clock, which k6 shares; k6's own latest sample when
     * that is behind, as when a file is replayed): the meta line first on the first call.
     */
    flush(nowMs: number): K6OutputLine[] {
      const clock = Math.min(nowMs, latestMs);
      const cutoff = Number.isFinite(clock) ? Math.floor(clock / 1000) - SETTLE_SECONDS : Number.NEGATIVE_INFINITY;
      return [...head(), ...due(cutoff)];
    },
    /** Everything left, then the end line with k6's clock (first and last sample, VU ticks not counted in the last). */
    end(): K6OutputLine[] {
      const out = [...head(), ...due(null)];
      out.push({
        t: "end",
        ...(samples && Number.isFinite(lastMs) ? { firstMs, lastMs } : {}),
      });
      return out;
    },
    get samples() {
      return samples;
    },
    get requests() {
      return requests;
    },
  };
}
export type K6JsonStream = ReturnType<typeof k6JsonStream>;
