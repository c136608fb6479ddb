// A run brought in from a result file written by plain k6 elsewhere (source "k6-import"):
// no target, no workload, no steps; its per-second rows merge with native runs'.
// Everything is written in one transaction, after the file has been read in full,
// so a failure part-way leaves no run behind.
import {
  loadTotals,
  measuredSummary,
  runEventDataSchema,
  runSummarySchema,
  summaryFlags,
  validityFlags,
  type K6LoadSecond,
  type LoadWindowSource,
  type ResultCell,
  type RunProvenance,
  type RunSummary,
} from "@opsbench/core";
import { insertLoadSeconds, insertResultSeconds, type LoadRow } from "../runs/bulk-insert";
import type { Db } from "../client";
import { jsonInput, jsonInputOfUnknown } from "../json-column";
import { rowFromCell } from "../runs/result-cell-row";
import { storeRunRollup } from "../runs/run-rollups";
import { provenanceColumns } from "../runs/run-provenance";

export const K6_IMPORT_SOURCE = "k6-import";

export interface ImportedRunInput {
  /** The run's label: --name, or the file's base name. */
  name: string;
  /** Times of the first and last sample in the file: the load window. */
  loadStartedAt: Date;
  loadFinishedAt: Date;
  /** Which span the window is on k6's clock: exact sample times (JSON) or whole-second rows (CSV). */
  durationSource: LoadWindowSource;
  cells: ResultCell[];
  load: K6LoadSecond[];
  events: Array<{ level: "info" | "warn" | "error"; message: string; data?: unknown }>;
  /** The code and build the run is of, and its series by name (checked again on write: provenanceColumns). */
  provenance?: RunProvenance;
}

export async function createImportedRun(db: Db, workspaceId: string, input: ImportedRunInput): Promise<{ id: string }> {
  const loadRows: LoadRow[] = input.load.map((l) => ({
    ts: l.ts,
    vus: Math.round(l.vus),
    vusMax: Math.round(l.vusMax),
    iterations: Math.round(l.iterations),
    droppedIterations: Math.round(l.dropped),
    bytesSent: l.sent,
    bytesReceived: l.received,
  }));
  // Its analysis window: an import states no warm-up, so MSER-5 decides it (flagged when it cuts).
  const measured = measuredSummary(input.cells, { startMs: input.loadStartedAt.getTime(), endMs: input.loadFinishedAt.getTime() }, null);
  // The load totals a live run's summary has (iterations, dropped iterations, ...), from the rows stored below;
  // a k6 file does not say how busy its machine was. A file without any load metric has no totals (not zeros).
  const summary: RunSummary = {
    ...measured.summary,
    durationSource: input.durationSource,
    ...(loadRows.length ? { load: { ...loadTotals(loadRows), generatorCpuPercent: null } } : {}),
  };
  // Flagged as a live run is from its summary (dropped iterations with their share), and for a detected warm-up.
  const flags = [...measured.flags, ...summaryFlags(summary)];
  const created = await db.$transaction(
    async (tx) => {
      const run = await tx.run.create({
        data: {
          workspaceId,
          source: K6_IMPORT_SOURCE,
          name: input.name,
          status: "SUCCEEDED",
          startedAt: input.loadStartedAt,
          loadStartedAt: input.loadStartedAt,
          loadFinishedAt: input.loadFinishedAt,
          finishedAt: input.loadFinishedAt,
          summary: jsonInput(runSummarySchema, summary),
          flags: jsonInput(validityFlags, flags),
          ...provenanceColumns(input.provenance),
        },
        select: { id: true },
      });
      const runId = run.id;
      await insertResultSeconds(
        tx,
        runId,
        input.cells.map((c) => ({ ts: c.ts, ...rowFromCell(c) })),
      );
      await insertLoadSeconds(tx, runId, loadRows);
      // The flags as timeline warnings too, as a live run's analysis writes them.
      const events: ImportedRunInput["events"] = [...input.events, ...flags.map((f) => ({ level: "warn" as const, message: f.message }))];
      if (events.length) {
        await tx.runEvent.createMany({
          data: events.map((e) => ({
            runId,
            level: e.level,
            message: e.message,
            ...(e.data === undefined ? {} : { data: jsonInputOfUnknown(runEventDataSchema, e.data) }),
          })),
        });
      }
      return { id: runId };
    },
    // Prisma's default of 5 s is short for the rows of a long run.
    { maxWait: 10_000, timeout: 10 * 60_000 },
  );
  // What the run contributes to comparisons, computed once now that it is complete.
  await storeRunRollup(db, created.id);
  return created;
}
