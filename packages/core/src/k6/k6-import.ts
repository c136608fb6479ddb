// Aggregates a result file written by plain k6 (`--out json=FILE` or `--out csv=FILE`)
// into the same per-second cells the opsbench k6 output writes (second x request name x
// status class, with mergeable histograms), so imported runs compare with native ones.
// Pure: the caller reads the file and feeds it line by line. Memory grows with
// seconds x names, never with requests. Bad lines are counted with their line numbers.
import { emptyHistogram, recordValue, toPart, type Histogram } from "../histograms/histogram";
import { k6LoadWindow, type LoadWindow } from "../windows/load-window";
import type { ResultCell } from "../runs/latency-summary";
import { OTHER_SERIES } from "./http-series-cap";
import { seriesNameWithin } from "./k6-output-format";

export type K6FileFormat = "json" | "csv";

export interface K6LoadSecond {
  ts: Date;
  vus: number;
  vusMax: number;
  sent: number;
  received: number;
  iterations: number;
  dropped: number;
}

export interface SkippedLine {
  line: number;
  reason: string;
}

export interface K6ImportResult {
  format: K6FileFormat;
  /** Lines read, the CSV header included. */
  lines: number;
  /** k6 samples (JSON Point lines, CSV rows) taken in, of any metric. */
  samples: number;
  /** http_req_duration samples: the imported request count. */
  requests: number;
  skipped: number;
  /** The first few skipped lines, in file order. */
  skippedExamples: SkippedLine[];
  /** Times of the first and last sample (any metric), in epoch milliseconds. */
  firstSampleMs: number | null;
  lastSampleMs: number | null;
  /** The load window on k6's clock (whole seconds when every timestamp was, as in k6's CSV output). */
  loadWindow: LoadWindow | null;
  /** Sorted by second, name, class. */
  cells: ResultCell[];
  /** Sorted by second. */
  load: K6LoadSecond[];
}

export const MAX_SKIPPED_EXAMPLES = 5;

/** The columns k6's CSV output needs to have; their order is read from the header. */
const CSV_REQUIRED = ["metric_name", "timestamp", "metric_value"] as const;
const LOAD_METRICS = new Set(["vus", "vus_max", "data_sent", "data_received", "iterations", "dropped_iterations"]);

/**
 * "2xx".."5xx" from k6's `status` tag; without a response, from k6's error code:
 * "timeout" (1050), "connection" (DNS and TCP, 1100-1299) or "error". Same as the opsbench output.
 */
export function statusClassOf(status: string | undefined, errorCode: string | undefined): string {
  if (status && status !== "0") return `${status[0]}xx`;
  const code = Number(errorCode);
  if (code === 1050) return "timeout";
  return code >= 1100 && code < 1300 ? "connection" : "error";
}

/**
 * What a file's first non-empty line says it is: a k6 JSON line, a k6 CSV header, or
 * neither (null). A JSON file whose first line is damaged can still be told by a later one.
 */
export function detectK6Format(line: string): K6FileFormat | null {
  const text = stripBom(line).trim();
  if (text.startsWith("{")) return typeof parseJsonLine(text) === "string" ? null : "json";
  const columns = parseCsvRow(text);
  if (!Array.isArray(columns)) return null;
  return CSV_REQUIRED.every((c) => columns.includes(c)) ? "csv" : null;
}

/** One k6 sample (a JSON Point or a CSV row). */
/**
 * The cell an http_req_duration sample goes to, as opsbench's output keys them: its second, request name (the name
 * tag, else the URL), status class, and success (k6's expected_response: successful and failed responses are kept
 * in separate cells, successCells).
 */
export function httpCellOf(s: K6Sample, second: number): { key: string; name: string; cls: string; failed: boolean } {
  const name = seriesNameWithin(s.tag("name") || s.tag("url") || "", OTHER_SERIES);
  const cls = statusClassOf(s.tag("status"), s.tag("error_code"));
  const failed = s.tag("expected_response") === "false";
  return { key: `${second}\u0000${name}\u0000${cls}\u0000${failed}`, name, cls, failed };
}

export interface K6Sample {
  metric: string;
  timeMs: number;
  value: number;
  tag(name: string): string | undefined;
}

interface Cell {
  second: number;
  name: string;
  class: string;
  failures: number;
  h: Histogram;
}

/**
 * The aggregator. For "csv", the first line given must be the header (detectK6Format
 * said so). Lines are given without their line ending, with 1-based line numbers.
 */
export function k6ImportAggregator(format: K6FileFormat) {
  const cells = new Map<string, Cell>();
  const load = new Map<number, K6LoadSecond>();
  const skippedExamples: SkippedLine[] = [];
  let lines = 0;
  let samples = 0;
  let requests = 0;
  let skipped = 0;
  let first = Infinity;
  let last = -Infinity;
  let wholeSecondSamples = true;
  let csv: { columns: string[]; index: Map<string, number>; header: string } | null = null;

  const skip = (line: number, reason: string) => {
    skipped++;
    if (skippedExamples.length < MAX_SKIPPED_EXAMPLES) skippedExamples.push({ line, reason });
  };

  const take = (s: K6Sample) => {
    samples++;
    if (s.timeMs < first) first = s.timeMs;
    if (s.timeMs > last) last = s.timeMs;
    if (s.timeMs % 1000 !== 0) wholeSecondSamples = false;
    const second = Math.floor(s.timeMs / 1000);
    if (s.metric === "http_req_duration") {
      requests++;
      const { key, name, cls, failed } = httpCellOf(s, second);
      let cell = cells.get(key);
      if (!cell) {
        cell = { second, name, class: cls, failures: 0, h: emptyHistogram() };
        cells.set(key, cell);
      }
      recordValue(cell.h, s.value);
      if (failed) cell.failures++;
    } else if (LOAD_METRICS.has(s.metric)) {
      let l = load.get(second);
      if (!l) {
        l = { ts: new Date(second * 1000), vus: 0, vusMax: 0, sent: 0, received: 0, iterations: 0, dropped: 0 };
        load.set(second, l);
      }
      // As the opsbench output does: gauges keep the second's highest value, counters add up.
      if (s.metric === "vus") l.vus = Math.max(l.vus, s.value);
      else if (s.metric === "vus_max") l.vusMax = Math.max(l.vusMax, s.value);
      else if (s.metric === "data_sent") l.sent += s.value;
      else if (s.metric === "data_received") l.received += s.value;
      else if (s.metric === "iterations") l.iterations += s.value;
      else l.dropped += s.value;
    }
  };

  const jsonLine = (text: string, lineNo: number) => {
    const parsed = parseJsonLine(text);
    if (typeof parsed === "string") return skip(lineNo, parsed);
    if (parsed) take(parsed);
  };

  const csvLine = (text: string, lineNo: number) => {
    const row = parseCsvRow(text);
    if (!csv) {
      if (!Array.isArray(row) || !CSV_REQUIRED.every((c) => row.includes(c))) {
        return skip(lineNo, `not a k6 CSV header (needs the columns ${CSV_REQUIRED.join(", ")})`);
      }
      csv = { columns: row, index: new Map(row.map((c, i) => [c, i])), header: text };
      return;
    }
    if (text === csv.header) return; // a repeated header (files joined together) carries no data
    if (typeof row === "string") return skip(lineNo, row);
    if (row.length !== csv.columns.length) return skip(lineNo, `CSV row has ${row.length} columns, the header has ${csv.columns.length}`);
    const at = (column: string) => {
      const i = csv!.index.get(column);
      return i === undefined ? undefined : row[i];
    };
    const metric = at("metric_name")!;
    if (!metric) return skip(lineNo, "empty metric_name");
    const rawTime = at("timestamp")!;
    const timeMs = parseCsvTimestamp(rawTime);
    if (timeMs === null) return skip(lineNo, `timestamp ${JSON.stringify(clip(rawTime))} is not a time`);
    const rawValue = at("metric_value")!;
    const value = parseNumber(rawValue);
    if (value === null) return skip(lineNo, `metric_value ${JSON.stringify(clip(rawValue))} is not a number`);
    take({ metric, timeMs, value, tag: at });
  };

  return {
    format,
    /** Feeds one line. Blank lines carry nothing and are passed over. */
    line(text: string, lineNo: number): void {
      lines++;
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (lines === 1) text = stripBom(text);
      if (text.trim() === "") return;
      if (format === "json") jsonLine(text, lineNo);
      else csvLine(text, lineNo);
    },
    /** Counts a line the reader could not hand over (too long, or cut off by a damaged gzip stream). */
    skip(lineNo: number, reason: string): void {
      lines++;
      skip(lineNo, reason);
    },
    get requests() {
      return requests;
    },
    finish(): K6ImportResult {
      const out: ResultCell[] = [...cells.values()]
        .sort((a, b) => a.second - b.second || cmp(a.name, b.name) || cmp(a.class, b.class) || a.failures - b.failures)
        .map((c) => ({ ts: new Date(c.second * 1000), name: c.name, class: c.class, failures: c.failures, ...toPart(c.h) }));
      return {
        format,
        lines,
        samples,
        requests,
        skipped,
        skippedExamples: [...skippedExamples],
        firstSampleMs: samples ? first : null,
        lastSampleMs: samples ? last : null,
        loadWindow: samples
          ? k6LoadWindow({ firstSampleMs: first, lastSampleMs: last, wholeSecondSamples, rowSeconds: out.map((c) => c.ts) })
          : null,
        cells: out,
        load: [...load.values()].sort((a, b) => a.ts.getTime() - b.ts.getTime()),
      };
    },
  };
}
export type K6ImportAggregator = ReturnType<typeof k6ImportAggregator>;

/** `N lines skipped (first: line 17: <reason>)`, or null when none were. */
export function describeSkipped(r: Pick<K6ImportResult, "skipped" | "skippedExamples">): string | null {
  if (r.skipped === 0) return null;
  const first = r.skippedExamples[0];
  return `${r.skipped} line${r.skipped === 1 ? "" : "s"} skipped${first ? ` (first: line ${first.line}: ${first.reason})` : ""}`;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const stripBom = (s: string) => (s.charCodeAt(0) === 0xfeff ? s.slice(1) : s);
const clip = (s: string, n = 40) => (s.length > n ? `${s.slice(0, n)}...` : s);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A sample, null for a line that is valid but carries none (a Metric line), or the reason it is bad. */
function parseJsonLine(text: string): K6Sample | null | string {
  const r = parseK6JsonRecord(text);
  return typeof r === "string" ? r : r.type === "Point" ? r.sample : null;
}

/** What a k6 JSON output's Metric line declares (k6's docs: type, contains, thresholds). */
export interface K6MetricDeclaration {
  name: string;
  /** "counter", "gauge", "rate" or "trend" ("" when the line names none). */
  metricType: string;
  /** "time", "data" or "default". */
  contains: string;
  thresholds: string[];
}

/** One line of k6's JSON output (`--out json=...`): a Point's sample, a Metric's declaration, or the reason it is neither. */
export function parseK6JsonRecord(
  text: string,
): { type: "Point"; sample: K6Sample } | { type: "Metric"; metric: K6MetricDeclaration } | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return `not JSON (${clip((err as Error).message, 80)})`;
  }
  if (!isObject(v)) return "not a k6 JSON line (not an object)";
  if (typeof v.metric !== "string" || v.metric === "") return 'not a k6 JSON line (no "metric")';
  if (!isObject(v.data)) return 'not a k6 JSON line (no "data" object)';
  if (v.type === "Metric") {
    const d = v.data;
    const thresholds = Array.isArray(d.thresholds) ? d.thresholds.filter((t): t is string => typeof t === "string") : [];
    return {
      type: "Metric",
      metric: {
        name: v.metric,
        metricType: typeof d.type === "string" ? d.type : "",
        contains: typeof d.contains === "string" ? d.contains : "default",
        thresholds,
      },
    };
  }
  if (v.type !== "Point") return `not a k6 JSON line ("type" is ${clip(JSON.stringify(v.type) ?? "missing")}, not "Point" or "Metric")`;
  const { time, value, tags } = v.data;
  if (typeof time !== "string") return 'not a k6 Point (no "data.time")';
  const timeMs = parseRfc3339(time);
  if (timeMs === null) return `not a k6 Point (data.time ${JSON.stringify(clip(time))} is not a time)`;
  if (typeof value !== "number" || !Number.isFinite(value)) return 'not a k6 Point ("data.value" is not a number)';
  if (tags !== undefined && tags !== null && !isObject(tags)) return 'not a k6 Point ("data.tags" is not an object)';
  const t = (tags ?? {}) as Record<string, unknown>;
  const metric = v.metric;
  return {
    type: "Point",
    sample: {
      metric,
      timeMs,
      value,
      tag: (name) => {
        const x = t[name];
        return typeof x === "string" ? x : x === undefined || x === null ? undefined : String(x);
      },
    },
  };
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch milliseconds (with sub-millisecond digits kept) of an RFC 3339 time as Go writes it. */
export function parseRfc3339(s: string): number | null {
  const m = RFC3339.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 60) return null;
  let ms = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(sec));
  if (frac) ms += Number(`0.${frac}`) * 1000;
  if (zone !== "Z" && zone !== "z") {
    const sign = zone![0] === "-" ? -1 : 1;
    ms -= sign * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6))) * 60_000;
  }
  return ms;
}

/**
 * k6's CSV `timestamp` in any of its time formats (K6_CSV_TIME_FORMAT): unix seconds
 * (the default), unix_milli/micro/nano (told apart by size), or RFC 3339.
 */
export function parseCsvTimestamp(s: string): number | null {
  if (/^\d+$/.test(s)) {
    // Split off the sub-millisecond digits: nanoseconds since 1970 exceed 2^53.
    const ms = (cut: number) => Number(s.slice(0, -cut)) + Number(s.slice(-cut)) / 10 ** cut;
    if (s.length <= 11) return Number(s) * 1000; // seconds until the year 5138
    if (s.length <= 14) return Number(s);
    if (s.length <= 17) return ms(3);
    return ms(6);
  }
  if (/^\d+\.\d+$/.test(s)) return Number(s) * 1000;
  return parseRfc3339(s);
}

function parseNumber(s: string): number | null {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** One CSV record on one line, quotes as Go's encoding/csv writes them; or why it is not one. */
export function parseCsvRow(text: string): string[] | string {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      let value = "";
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q === -1) return "unterminated quoted CSV field";
        value += text.slice(i, q);
        if (text[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(value);
      if (i === text.length) return out;
      if (text[i] !== ",") return `stray character after a quoted CSV field at column ${i + 1}`;
      i++;
    } else {
      const c = text.indexOf(",", i);
      const value = c === -1 ? text.slice(i) : text.slice(i, c);
      if (value.includes('"')) return `stray quote in a CSV field at column ${i + 1}`;
      out.push(value);
      if (c === -1) return out;
      i = c + 1;
    }
  }
}
