// Reads a k6 result file (`--out json=FILE`, gzip-compressed or not, or `--out csv=FILE`)
// in one streaming pass into packages/core's aggregator. The first non-empty line says
// the format; each format has its own reader below. Nothing is written here: the caller
// stores the result, in one transaction.
import { detectK6Format, k6ImportAggregator, type K6FileFormat, type K6ImportAggregator, type K6ImportResult } from "@opsbench/core";
import { type K6FileLines, type K6Line, openK6File } from "./k6-file-lines";
import { K6InputError } from "./k6-input-error";

export interface K6File {
  file: string;
  format: K6FileFormat;
  gzip: boolean;
  bytes: number;
  result: K6ImportResult;
}

type OnProgress = (bytesRead: number, fileBytes: number, requests: number) => void;

/** A file whose first non-empty line looks like JSON but is not k6's may still be k6 JSON damaged at the top. */
const DETECT_LOOKAHEAD_LINES = 50;
const PROGRESS_EVERY_MS = 5000;

/** Reads a k6 result file in one streaming pass. Throws K6InputError for a file that cannot be imported. */
export async function readK6File(file: string, opts: { onProgress?: OnProgress } = {}): Promise<K6File> {
  const source = await openK6File(file);
  try {
    const start = await firstNonEmptyLine(file, source.lines);
    const format = detectK6Format(start.first.text);
    const read = { file, source, start, progress: progressReporter(source, opts.onProgress) };
    let aggregator: K6ImportAggregator;
    if (format === "csv") aggregator = await readCsv(read);
    else if (format === "json" || looksLikeJson(start.first.text)) aggregator = await readJsonLines(read);
    else throw notK6(file, firstLineIs(start.first.text));
    const result = aggregator.finish();
    if (result.requests === 0) {
      throw new K6InputError(
        `${file} has no http_req_duration points (${result.samples} samples of other metrics): nothing to import; k6 writes one per HTTP request`,
      );
    }
    return { file, format: result.format, gzip: source.gzip, bytes: source.bytes, result };
  } finally {
    await source.lines.return();
  }
}

interface Reading {
  file: string;
  source: K6FileLines;
  /** The lines read to find the format: blank ones, then the first non-empty one. */
  start: { blank: K6Line[]; first: { lineNo: number; text: string } };
  progress: (requests: number) => void;
}

/** k6 CSV: the first non-empty line is the header (the aggregator finds its columns there), every later line a row. */
async function readCsv({ source, start, progress }: Reading): Promise<K6ImportAggregator> {
  const aggregator = k6ImportAggregator("csv");
  for (const line of [...start.blank, start.first]) feed(aggregator, line);
  await feedRest(aggregator, source.lines, progress);
  return aggregator;
}

/**
 * k6 JSON lines: one object per line. The file counts as k6 JSON once one of its first
 * DETECT_LOOKAHEAD_LINES non-empty lines is a k6 line; damaged lines before it are counted as skipped.
 */
async function readJsonLines({ file, source, start, progress }: Reading): Promise<K6ImportAggregator> {
  const waiting: K6Line[] = [...start.blank, start.first];
  let nonEmpty = 1;
  let found = detectK6Format(start.first.text) === "json";
  while (!found) {
    if (nonEmpty >= DETECT_LOOKAHEAD_LINES) throw notK6(file, firstLineIs(start.first.text));
    const next = await source.lines.next();
    if (next.done || "unreadable" in next.value) throw notK6(file, firstLineIs(start.first.text));
    waiting.push(next.value);
    if (next.value.text.trim() === "") continue;
    nonEmpty++;
    found = detectK6Format(next.value.text) === "json";
  }
  const aggregator = k6ImportAggregator("json");
  for (const line of waiting) feed(aggregator, line);
  await feedRest(aggregator, source.lines, progress);
  return aggregator;
}

/** Reads up to the first non-empty line; a file without one is empty, one whose first lines cannot be read is not k6's. */
async function firstNonEmptyLine(file: string, lines: AsyncIterator<K6Line>): Promise<Reading["start"]> {
  const blank: K6Line[] = [];
  for (;;) {
    const next = await lines.next();
    if (next.done) throw new K6InputError(`${file} is empty: nothing to import`);
    const line = next.value;
    if ("unreadable" in line) throw notK6(file, `line ${line.lineNo} cannot be read: ${line.unreadable}`);
    if (line.text.trim() !== "") return { blank, first: line };
    blank.push(line);
  }
}

async function feedRest(aggregator: K6ImportAggregator, lines: AsyncIterable<K6Line>, progress: (requests: number) => void) {
  for await (const line of lines) {
    feed(aggregator, line);
    progress(aggregator.requests);
  }
}

function feed(aggregator: K6ImportAggregator, line: K6Line) {
  if ("unreadable" in line) aggregator.skip(line.lineNo, line.unreadable);
  else aggregator.line(line.text, line.lineNo);
}

function progressReporter(source: K6FileLines, onProgress: OnProgress | undefined) {
  let last = Date.now();
  return (requests: number) => {
    if (!onProgress || Date.now() - last <= PROGRESS_EVERY_MS) return;
    last = Date.now();
    onProgress(source.bytesRead(), source.bytes, requests);
  };
}

const looksLikeJson = (line: string) =>
  line
    .replace(/^\uFEFF/, "")
    .trimStart()
    .startsWith("{");

function notK6(file: string, why: string): K6InputError {
  return new K6InputError(
    `${file} is not a k6 result file: expected k6 JSON lines (k6 run --out json=FILE) or a k6 CSV header (k6 run --out csv=FILE), but ${why}`,
  );
}

const firstLineIs = (line: string) => `the first line is ${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}...` : line)}`;
