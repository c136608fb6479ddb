import { importedRunOf } from "@opsbench/core";
import { exportRun, ingestRows, notifyNewChanges } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { log } from "@/lib/log";
import { admitNewWork } from "@/lib/server/run-admission";
import { getDb, getExportQueue, getNotificationQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Imports a plain k6 result file as a run: `opsbench import k6 FILE` with OPSBENCH_URL reads the file where it is
 * and uploads its per-second aggregate (packages/core k6/k6-import-upload.ts), checked here cell by cell. An import is
 * a run like any other to the workspace's limits (runs per day, creations per minute, work under way).
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const upload = await parseBody(API_CONTRACTS["POST /api/v1/imports/k6"].body, request);
  await admitNewWork(scope, await scope.limits.get());
  const imported = importedRunOf(upload);
  const run = await scope.importRun(imported);
  ingestRows.inc({ source: "import" }, imported.cells.length);
  await audit(scope, request, {
    action: "run.import",
    subjectKind: "run",
    subjectId: run.id,
    detail: { name: upload.name, file: upload.file.path, requests: upload.requests },
  });
  // An imported run lands in its series as a run the worker ran does: a change it confirms is told. Best effort.
  await notifyNewChanges(getDb(), getNotificationQueue(), run.id).catch((err) =>
    log.warn({ err, runId: run.id }, "could not look for the imported run's series changes to tell"),
  );
  // And it goes to the workspace's results exporters (docs/exports.md), as a run the worker ran does. Best effort.
  await exportRun(getDb(), getExportQueue(), run.id).catch((err) =>
    log.warn({ err, runId: run.id }, "could not queue the imported run's results export"),
  );
  return NextResponse.json({ id: run.id, status: "SUCCEEDED" }, { status: 201 });
});
