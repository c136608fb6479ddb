// `opsbench import k6 FILE`, the part that needs no database (the packed CLI's too): the arguments, reading the
// file into its aggregate (read-k6-file.ts) and printing the imported run.
import path from "node:path";
import { parseArgs } from "node:util";
import { describeK6File, describeSkipped, type K6ImportUpload, toK6ImportUpload } from "@opsbench/core";
import { K6InputError } from "./k6-input-error";
import { type K6File, readK6File } from "./read-k6-file";
import { formatSummary, type RunReport, runSummaryJson } from "./run-report";
import { PROVENANCE_OPTIONS, PROVENANCE_USAGE, runProvenance } from "./provenance-flags";

export const IMPORT_K6_USAGE = `  opsbench import k6 FILE [--name NAME] [--json]              import a k6 --out json (or .gz) or --out csv result file as a run
               ${PROVENANCE_USAGE}
                                                              its provenance and series (CI's own variables give the first four)`;

function parseImportArgs(args: string[], usageError: (m: string) => Error) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { name: { type: "string" }, json: { type: "boolean", default: false }, ...PROVENANCE_OPTIONS },
    });
  } catch (err) {
    throw usageError((err as Error).message);
  }
}

/** Reads `import k6`'s FILE into the upload (or the exit code 2 after saying what is wrong with it), and its --json. */
export async function readImportUpload(
  args: string[],
  io: { say: (m: string) => void; usageError: (m: string) => Error },
): Promise<{ upload: K6ImportUpload; json: boolean } | number> {
  const { values, positionals } = parseImportArgs(args, io.usageError);
  if (positionals.length !== 1) throw io.usageError("import k6 needs one FILE");
  if (values.name !== undefined && values.name.trim() === "") throw io.usageError("--name must not be empty");
  const file = path.resolve(positionals[0]!);
  // Checked before the file is read (a long read is not wasted on a bad flag); a refusal is a usage error.
  const provenance = runProvenance(values);

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
  return { upload: Object.keys(provenance).length ? { ...upload, provenance } : upload, json: values.json };
}

export function printImport(view: RunReport & { name?: string | null; source: string }, upload: K6ImportUpload, json: boolean): number {
  const skippedNote = describeSkipped(upload);
  if (json) {
    console.log(
      JSON.stringify({
        ...runSummaryJson(view),
        skippedLines: upload.skipped,
        skippedExamples: upload.skippedExamples,
        source: view.source,
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
