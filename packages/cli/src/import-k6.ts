// `opsbench import k6 FILE`: brings a result file written by plain k6 elsewhere
// (`--out json=FILE`, gzip-compressed or not, or `--out csv=FILE`) in as a run.
// The file is streamed line by line into packages/core's aggregator; nothing is
// written until it has been read in full, and then in one transaction.
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { parseArgs } from "node:util";
import { createGunzip } from "node:zlib";
import {
  describeSkipped,
  detectK6Format,
  k6ImportAggregator,
  type K6FileFormat,
  type K6ImportAggregator,
  type K6ImportResult,
} from "@opsbench/core";
import { createDb, createImportedRun, defaultWorkspaceId, K6_IMPORT_SOURCE, loadRunView } from "@opsbench/db";
import { loadEnv } from "./env";
import { formatSummary, runSummaryJson } from "./wait-for-run";

/** The file cannot be imported: exit 2, nothing written. */
export class K6InputError extends Error {}

export interface K6File {
  file: string;
  format: K6FileFormat;
  gzip: boolean;
  bytes: number;
  result: K6ImportResult;
}

const MAX_LINE_CHARS = 1 << 20;
/** A file whose first non-empty line looks like JSON but is not k6's may still be k6 JSON damaged at the top. */
const DETECT_LOOKAHEAD_LINES = 50;
const FORMAT_NAMES: Record<K6FileFormat, string> = { json: "k6 JSON", csv: "k6 CSV" };

/** Reads a k6 result file in one streaming pass. Throws K6InputError for a file that cannot be imported. */
export async function readK6File(
  file: string,
  opts: { onProgress?: (bytesRead: number, fileBytes: number, requests: number) => void } = {},
): Promise<K6File> {
  const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
    throw new K6InputError(err.code === "ENOENT" ? `no such file: ${file}` : `cannot read ${file}: ${err.message}`);
  });
  if (info.isDirectory()) throw new K6InputError(`${file} is a directory, not a k6 result file`);
  const gzip = await startsWithGzipMagic(file);

  let lineNo = 0;
  let agg: K6ImportAggregator | null = null;
  // Until the format is known, lines wait here (a few at most).
  const waiting: Array<[string, number]> = [];
  let nonEmpty = 0;
  let firstNonEmpty = "";

  const onLine = (text: string, n: number) => {
    if (agg) return agg.line(text, n);
    waiting.push([text, n]);
    if (text.trim() === "") return;
    nonEmpty++;
    if (nonEmpty === 1) firstNonEmpty = text;
    const format = detectK6Format(text);
    if (format && (nonEmpty === 1 || format === "json")) {
      agg = k6ImportAggregator(format);
      for (const [t, m] of waiting.splice(0)) agg.line(t, m);
      return;
    }
    const looksJson = firstNonEmpty
      .replace(/^\uFEFF/, "")
      .trimStart()
      .startsWith("{");
    if (!looksJson || nonEmpty >= DETECT_LOOKAHEAD_LINES) throw notK6(file, firstLineIs(firstNonEmpty));
  };
  const onBadLine = (n: number, reason: string) => {
    if (agg) agg.skip(n, reason);
    else throw notK6(file, firstNonEmpty ? firstLineIs(firstNonEmpty) : `line ${n} cannot be read: ${reason}`);
  };

  let bytesRead = 0;
  let pending = "";
  let tooLong = false;
  let lastProgress = Date.now();
  const decoder = new StringDecoder("utf8");
  const takeText = (s: string) => {
    let from = 0;
    for (;;) {
      const nl = s.indexOf("\n", from);
      if (nl === -1) break;
      lineNo++;
      if (tooLong) onBadLine(lineNo, `line longer than ${MAX_LINE_CHARS / (1 << 20)} MiB`);
      else onLine(pending + s.slice(from, nl), lineNo);
      pending = "";
      tooLong = false;
      from = nl + 1;
    }
    if (!tooLong) {
      pending += s.slice(from);
      if (pending.length > MAX_LINE_CHARS) {
        tooLong = true;
        pending = "";
      }
    }
  };

  let gzipError: (Error & { code?: string }) | null = null;
  await new Promise<void>((resolve, reject) => {
    const input = createReadStream(file, { highWaterMark: 256 * 1024 });
    const gunzip = gzip ? createGunzip() : null;
    const out = gunzip ? input.pipe(gunzip) : input;
    let done = false;
    const fail = (err: unknown) => {
      if (done) return;
      done = true;
      input.destroy();
      gunzip?.destroy();
      reject(err);
    };
    input.on("data", (chunk) => (bytesRead += chunk.length));
    input.on("error", (err) => fail(new K6InputError(`cannot read ${file}: ${err.message}`)));
    out.on("data", (chunk: Buffer) => {
      if (done) return;
      try {
        takeText(decoder.write(chunk));
        if (opts.onProgress && Date.now() - lastProgress > 5000) {
          lastProgress = Date.now();
          opts.onProgress(bytesRead, info.size, (agg as K6ImportAggregator | null)?.requests ?? 0);
        }
      } catch (err) {
        fail(err);
      }
    });
    out.on("end", () => {
      if (!done) (done = true), resolve();
    });
    // Data decompressed before a damaged or cut-off part has all been handed over
    // by now (zlib emits its output before the error); the rest is reported.
    gunzip?.on("error", (err) => {
      if (done) return;
      done = true;
      gzipError = err;
      input.destroy();
      resolve();
    });
  });

  const tail = pending + decoder.end();
  const cut = gzipError as (Error & { code?: string }) | null;
  if (cut) {
    if (lineNo === 0 && tail === "") throw new K6InputError(`${file} looks gzip-compressed but cannot be decompressed: ${cut.message}`);
    const why = cut.code === "Z_BUF_ERROR" ? "the compressed data ends early" : "the compressed data is damaged";
    onBadLine(
      lineNo + 1,
      tail === "" && !tooLong ? `${why} (${cut.message}); the rest of the file is lost` : `cut off: ${why} (${cut.message})`,
    );
  } else if (tooLong) {
    onBadLine(lineNo + 1, `line longer than ${MAX_LINE_CHARS / (1 << 20)} MiB`);
  } else if (tail !== "") {
    onLine(tail, lineNo + 1);
  }

  const aggregator = agg as K6ImportAggregator | null;
  if (!aggregator) {
    if (nonEmpty === 0) throw new K6InputError(`${file} is empty: nothing to import`);
    throw notK6(file, firstLineIs(firstNonEmpty));
  }
  const result = aggregator.finish();
  if (result.requests === 0) {
    throw new K6InputError(
      `${file} has no http_req_duration points (${result.samples} samples of other metrics): nothing to import; k6 writes one per HTTP request`,
    );
  }
  return { file, format: result.format, gzip, bytes: info.size, result };
}

function notK6(file: string, why: string): K6InputError {
  return new K6InputError(
    `${file} is not a k6 result file: expected k6 JSON lines (k6 run --out json=FILE) or a k6 CSV header (k6 run --out csv=FILE), but ${why}`,
  );
}

const firstLineIs = (line: string) => `the first line is ${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}...` : line)}`;

async function startsWithGzipMagic(file: string): Promise<boolean> {
  const fh = await open(file, "r").catch((err: Error) => {
    throw new K6InputError(`cannot read ${file}: ${err.message}`);
  });
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await fh.read(buf, 0, 2, 0);
    return bytesRead === 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  } catch (err) {
    throw new K6InputError(`cannot read ${file}: ${(err as Error).message}`);
  } finally {
    await fh.close();
  }
}

/** `opsbench import k6 FILE [--name NAME] [--json]`. Exit 0 imported (also with skipped lines), 2 bad input. */
export async function importK6Command(args: string[], io: { say: (m: string) => void; usageError: (m: string) => Error }): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { name: { type: "string" }, json: { type: "boolean", default: false } },
    });
  } catch (err) {
    throw io.usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw io.usageError("import k6 needs one FILE");
  if (values.name !== undefined && values.name.trim() === "") throw io.usageError("--name must not be empty");
  const file = path.resolve(positionals[0]!);

  let read: K6File;
  try {
    read = await readK6File(file, {
      onProgress: (bytes, total, requests) =>
        io.say(`  read ${(bytes / 1e6).toFixed(0)} of ${(total / 1e6).toFixed(0)} MB, ${requests} requests so far...`),
    });
  } catch (err) {
    if (err instanceof K6InputError) {
      io.say(`opsbench: ${err.message}`);
      return 2;
    }
    throw err;
  }

  const r = read.result;
  const kind = `${FORMAT_NAMES[read.format]}${read.gzip ? ", gzip-compressed" : ""}`;
  const skippedNote = describeSkipped(r);
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 2 });
  try {
    const run = await createImportedRun(db, await defaultWorkspaceId(db), {
      name: values.name ?? path.basename(file),
      // k6's clock: first to last sample, or whole seconds when k6 wrote whole-second timestamps (CSV).
      loadStartedAt: new Date(r.loadWindow!.startMs),
      loadFinishedAt: new Date(r.loadWindow!.endMs),
      cells: r.cells,
      load: r.load,
      events: [
        {
          level: "info",
          message: `imported from ${path.basename(file)} (${kind}): ${r.requests} requests, ${r.lines} lines`,
          data: { file, format: read.format, gzip: read.gzip, bytes: read.bytes, lines: r.lines, samples: r.samples, requests: r.requests },
        },
        ...(skippedNote
          ? [{ level: "warn" as const, message: skippedNote, data: { skippedLines: r.skipped, skippedExamples: r.skippedExamples } }]
          : []),
      ],
    });
    const view = await loadRunView(db, run.id);
    if (values.json) {
      console.log(
        JSON.stringify({
          ...runSummaryJson(view),
          skippedLines: r.skipped,
          skippedExamples: r.skippedExamples,
          source: K6_IMPORT_SOURCE,
          file,
        }),
      );
    } else {
      console.log(`imported ${file} (${kind}) as "${view.name}"`);
      console.log(formatSummary(view));
      if (skippedNote) console.log(`  warning: ${skippedNote}`);
    }
    return 0;
  } finally {
    await db.$disconnect();
  }
}
