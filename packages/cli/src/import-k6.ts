// `opsbench import k6 FILE`: brings a result file written by plain k6 elsewhere
// (`--out json=FILE`, gzip-compressed or not, or `--out csv=FILE`) in as a run.
// The file is streamed line by line into packages/core's aggregator (read-k6-file.ts);
// nothing is written until it has been read in full, and then in one transaction.
import path from "node:path";
import { parseArgs } from "node:util";
import { describeSkipped, type K6FileFormat } from "@opsbench/core";
import { createDb, createImportedRun, defaultWorkspaceId, K6_IMPORT_SOURCE, loadRunView } from "@opsbench/db";
import { loadEnv } from "./env";
import { K6InputError } from "./k6-input-error";
import { type K6File, readK6File } from "./read-k6-file";
import { formatSummary, runSummaryJson } from "./wait-for-run";

const FORMAT_NAMES: Record<K6FileFormat, string> = { json: "k6 JSON", csv: "k6 CSV" };

function parseImportArgs(args: string[], usageError: (m: string) => Error) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { name: { type: "string" }, json: { type: "boolean", default: false } },
    });
  } catch (err) {
    throw usageError((err as Error).message);
  }
}

/** `opsbench import k6 FILE [--name NAME] [--json]`. Exit 0 imported (also with skipped lines), 2 bad input. */
export async function importK6Command(args: string[], io: { say: (m: string) => void; usageError: (m: string) => Error }): Promise<number> {
  const { values, positionals } = parseImportArgs(args, io.usageError);
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
      durationSource: r.loadWindow!.source,
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
