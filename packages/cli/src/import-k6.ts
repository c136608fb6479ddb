// `opsbench import k6 FILE`: brings a result file written by plain k6 elsewhere
// (`--out json=FILE`, gzip-compressed or not, or `--out csv=FILE`) in as a run.
// The file is streamed line by line into packages/core's aggregator (read-k6-file.ts);
// nothing is written until it has been read in full, and then in one transaction. With OPSBENCH_URL and
// OPSBENCH_TOKEN the aggregate goes to that server's POST /api/v1/imports/k6 instead of the database.
import path from "node:path";
import { parseArgs } from "node:util";
import { describeK6File, describeSkipped, importedRunOf, type K6ImportUpload, k6ImportUpload, toK6ImportUpload } from "@opsbench/core";
import { createDb, createImportedRun, defaultWorkspaceId, K6_IMPORT_SOURCE, loadRunView } from "@opsbench/db";
import { loadEnv, loadRemote } from "./env";
import { K6InputError } from "./k6-input-error";
import { type K6File, readK6File } from "./read-k6-file";
import { remoteImportK6, remoteRunReport } from "./remote-client";
import { formatSummary, type RunReport, runSummaryJson } from "./run-report";

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

  const upload = toK6ImportUpload(
    values.name ?? path.basename(file),
    { path: file, format: read.format, gzip: read.gzip, bytes: read.bytes },
    read.result,
  );
  const remote = loadRemote();
  if (remote) {
    // The server stores it (and checks it again); the file itself stays here, only its aggregate travels.
    const id = await remoteImportK6(remote, upload);
    return printImport(await remoteRunReport(remote, id), upload, values.json);
  }
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 2 });
  try {
    const run = await createImportedRun(db, await defaultWorkspaceId(db), importedRunOf(k6ImportUpload.parse(upload)));
    return printImport(await loadRunView(db, run.id), upload, values.json);
  } finally {
    await db.$disconnect();
  }
}

function printImport(view: RunReport & { name?: string | null }, upload: K6ImportUpload, json: boolean): number {
  const skippedNote = describeSkipped(upload);
  if (json) {
    console.log(
      JSON.stringify({
        ...runSummaryJson(view),
        skippedLines: upload.skipped,
        skippedExamples: upload.skippedExamples,
        source: K6_IMPORT_SOURCE,
        file: upload.file.path,
      }),
    );
  } else {
    console.log(`imported ${upload.file.path} (${describeK6File(upload.file)}) as "${view.name ?? upload.name}"`);
    console.log(formatSummary(view));
    if (skippedNote) console.log(`  warning: ${skippedNote}`);
  }
  return 0;
}
