// `opsbench import k6 FILE`: brings a result file written by plain k6 elsewhere
// (`--out json=FILE`, gzip-compressed or not, or `--out csv=FILE`) in as a run.
// The file is streamed line by line into packages/core's aggregator (read-k6-file.ts);
// nothing is written until it has been read in full, and then in one transaction. With OPSBENCH_URL and
// OPSBENCH_TOKEN the aggregate goes to that server's POST /api/v1/imports/k6 instead (remote-main.ts). The run goes to
// the workspace's results exporters (docs/exports.md) as the API's import does: queued here, sent by a worker.
import { importedRunOf, type K6ImportUpload, k6ImportUpload } from "@opsbench/core";
import { createDb, createImportedRun, type Db, defaultWorkspaceId, loadRunView, recordRunExports } from "@opsbench/db";
import { createExportQueue, enqueueExports } from "@opsbench/jobs";
import { loadEnv } from "./env";
import { printImport, readImportUpload } from "./import-k6-file";

/** `opsbench import k6 FILE [--name NAME] [--json]`. Exit 0 imported (also with skipped lines), 2 bad input. */
export async function importK6Command(args: string[], io: { say: (m: string) => void; usageError: (m: string) => Error }): Promise<number> {
  const read = await readImportUpload(args, io);
  if (typeof read === "number") return read;
  const { upload, json } = read;
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 2 });
  try {
    const run = await importUpload(db, env.REDIS_URL, upload);
    return printImport(await loadRunView(db, run.id), upload, json);
  } finally {
    await db.$disconnect();
  }
}

/**
 * A file read in full, as a run of the default workspace: made in one transaction, then queued to the workspace's
 * results exporters. Redis is opened only when an exporter wants the run: an import alone needs only Postgres.
 */
export async function importUpload(db: Db, redisUrl: string, upload: K6ImportUpload): Promise<{ id: string }> {
  const run = await createImportedRun(db, await defaultWorkspaceId(db), importedRunOf(k6ImportUpload.parse(upload)));
  const exports = await recordRunExports(db, run.id);
  if (exports.length) {
    const queue = createExportQueue(redisUrl);
    try {
      await enqueueExports(queue, exports);
    } finally {
      await queue.close();
    }
  }
  return run;
}
