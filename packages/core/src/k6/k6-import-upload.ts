// What `opsbench import k6 FILE` sends a server (POST /api/v1/imports/k6) and what it stores locally: the file
// read by the CLI into per-second cells (k6-import.ts), with each histogram in opsbench's bucket encoding
// (base64), so a k6 file of gigabytes travels as its aggregate. The server checks every cell (its histogram
// decodes and holds exactly `count` requests) and recomputes the summary itself.
import { z } from "zod";
import { base64ToBytes, bytesToBase64 } from "../histograms/base64-bytes";
import { decodeBuckets, encodeBuckets } from "../histograms/histogram-encoding";
import { describeSkipped, type K6FileFormat, type K6ImportResult, type K6LoadSecond, MAX_SKIPPED_EXAMPLES } from "./k6-import";
import type { ResultCell } from "../runs/latency-summary";
import { LOAD_WINDOW_SOURCE_IDS } from "../windows/load-window";
import { runProvenanceSchema } from "../runs/provenance";

const count = z.number().int().nonnegative();
const ms = z.number().int().nonnegative();
/** k6's gauges and counters per second (VUs may be averages). */
const amount = z.number().nonnegative().refine(Number.isFinite, "must be a finite number");
const finite = z.number().refine(Number.isFinite, "must be a finite number");

const uploadedCell = z
  .strictObject({
    /** The second, epoch milliseconds. */
    ts: ms,
    name: z.string().max(2000),
    class: z.string().min(1).max(16),
    count,
    failures: count,
    sum: finite,
    min: finite,
    max: finite,
    /** encodeBuckets(...), base64. */
    buckets: z.base64().max(100_000),
  })
  .transform((c, ctx): ResultCell => {
    let buckets: ResultCell["buckets"] = [];
    try {
      buckets = decodeBuckets(base64ToBytes(c.buckets));
    } catch (err) {
      ctx.addIssue({ code: "custom", path: ["buckets"], message: `not a histogram: ${(err as Error).message}` });
      return z.NEVER;
    }
    if (buckets.reduce((n, [, k]) => n + k, 0) !== c.count)
      ctx.addIssue({ code: "custom", path: ["buckets"], message: `the histogram does not hold count (${c.count}) values` });
    if (c.failures > c.count) ctx.addIssue({ code: "custom", path: ["failures"], message: "more failures than requests" });
    return { ...c, ts: new Date(c.ts), buckets };
  });

const uploadedLoadSecond = z
  .strictObject({ ts: ms, vus: amount, vusMax: amount, sent: amount, received: amount, iterations: amount, dropped: amount })
  .transform((l): K6LoadSecond => ({ ...l, ts: new Date(l.ts) }));

/** The most seconds x names x classes one import may hold (a day of 10 request names with 3 classes each). */
export const MAX_IMPORT_CELLS = 2_600_000;

export const k6ImportUpload = z
  .strictObject({
    /** The run's label (--name, or the file's base name). */
    name: z.string().trim().min(1).max(200),
    file: z.strictObject({ path: z.string().max(4096), format: z.enum(["json", "csv"]), gzip: z.boolean(), bytes: count }),
    lines: count,
    samples: count,
    requests: count.min(1, "an import needs at least one request"),
    skipped: count,
    skippedExamples: z.array(z.strictObject({ line: count, reason: z.string().max(1000) })).max(MAX_SKIPPED_EXAMPLES),
    loadWindow: z
      .strictObject({ startMs: ms, endMs: ms, source: z.enum(LOAD_WINDOW_SOURCE_IDS) })
      .refine((w) => w.endMs >= w.startMs, "endMs is before startMs"),
    cells: z.array(uploadedCell).min(1).max(MAX_IMPORT_CELLS),
    load: z.array(uploadedLoadSecond).max(MAX_IMPORT_CELLS),
    /** The code and build the run is of, and its series by name (the CLI's --commit ... --series flags). */
    provenance: runProvenanceSchema.optional(),
  })
  .refine((u) => u.cells.reduce((n, c) => n + c.count, 0) === u.requests, {
    path: ["requests"],
    message: "is not the sum of the cells' counts",
  });
export type K6ImportUpload = z.input<typeof k6ImportUpload>;
export type K6ImportParsed = z.output<typeof k6ImportUpload>;

const FORMAT_NAMES: Record<K6FileFormat, string> = { json: "k6 JSON", csv: "k6 CSV" };

/** The upload of a file the CLI read (readK6File's answer). */
export function toK6ImportUpload(
  name: string,
  file: { path: string; format: K6FileFormat; gzip: boolean; bytes: number },
  r: K6ImportResult,
): K6ImportUpload {
  if (!r.loadWindow) throw new Error("an import needs a load window (the file has samples)");
  return {
    name,
    file,
    lines: r.lines,
    samples: r.samples,
    requests: r.requests,
    skipped: r.skipped,
    skippedExamples: r.skippedExamples,
    // Whole milliseconds, as the Date the run stores them in keeps them.
    loadWindow: { startMs: Math.trunc(r.loadWindow.startMs), endMs: Math.trunc(r.loadWindow.endMs), source: r.loadWindow.source },
    cells: r.cells.map((c) => ({ ...c, ts: c.ts.getTime(), buckets: bytesToBase64(encodeBuckets(c.buckets)) })),
    load: r.load.map((l) => ({ ...l, ts: l.ts.getTime() })),
  };
}

/** How "k6 JSON, gzip-compressed" the file was. */
export const describeK6File = (file: { format: K6FileFormat; gzip: boolean }) =>
  `${FORMAT_NAMES[file.format]}${file.gzip ? ", gzip-compressed" : ""}`;

/** The imported run to store (packages/db createImportedRun's input): its window, cells and timeline events. */
export function importedRunOf(u: K6ImportParsed) {
  const base = u.file.path.split(/[\\/]/).pop() ?? u.file.path;
  const skippedNote = describeSkipped(u);
  return {
    name: u.name,
    // k6's clock: first to last sample, or whole seconds when k6 wrote whole-second timestamps (CSV).
    loadStartedAt: new Date(u.loadWindow.startMs),
    loadFinishedAt: new Date(u.loadWindow.endMs),
    durationSource: u.loadWindow.source,
    cells: u.cells,
    load: u.load,
    ...(u.provenance ? { provenance: u.provenance } : {}),
    events: [
      {
        level: "info" as const,
        message: `imported from ${base} (${describeK6File(u.file)}): ${u.requests} requests, ${u.lines} lines`,
        data: {
          file: u.file.path,
          format: u.file.format,
          gzip: u.file.gzip,
          bytes: u.file.bytes,
          lines: u.lines,
          samples: u.samples,
          requests: u.requests,
        },
      },
      ...(skippedNote
        ? [{ level: "warn" as const, message: skippedNote, data: { skippedLines: u.skipped, skippedExamples: u.skippedExamples } }]
        : []),
    ],
  };
}
