// The "notifications" queue (docs/notifications.md): notify() writes one delivery row per destination an event goes
// to (the workspace's subscribed webhook endpoints and its e-mail) and enqueues each; a worker sends them, up to
// NOTIFICATION_ATTEMPTS times with a growing delay (its backoff strategy, named NOTIFICATION_BACKOFF here), recording
// every attempt on the row. The row is the truth, the job only carries its id. Callers: the worker when a run ends
// FAILED (notifyRunFailed), the web app when the CLI reports a tripped gate and for "Send test", and whatever detects
// a change or skips a schedule (notify with "change.detected" / "schedule.skipped").
import { randomUUID } from "node:crypto";
import {
  CHANGE_METRICS,
  NOTIFICATION_ATTEMPTS,
  type SentEventType,
  type SeriesChange,
  seriesChanges,
  seriesKeyText,
  seriesTitle,
} from "@opsbench/core";
import { changeAlreadyTold, type Db, recordNotification, runNotice, seriesOfRun, workspaceIdentity, workspaceScope } from "@opsbench/db";
import { z } from "zod";
import { createOpsbenchQueue } from "./queues";
import { createExportQueue, exportRun } from "./results-exports";

export const NOTIFICATION_QUEUE = "notifications";
/** The name of the worker's backoff strategy for notification jobs (exponential from OPSBENCH_NOTIFICATION_RETRY_BASE_MS). */
export const NOTIFICATION_BACKOFF = "opsbench-notification";

export const notificationJobPayload = z.object({ deliveryId: z.uuid() }).strict();
export type NotificationJobPayload = z.infer<typeof notificationJobPayload>;

export const createNotificationQueue = (redisUrl: string, prefix?: string) =>
  createOpsbenchQueue<NotificationJobPayload>(NOTIFICATION_QUEUE, redisUrl, prefix);
export type NotificationQueue = ReturnType<typeof createNotificationQueue>;

/** An event to tell a workspace about. */
export interface NotifyInput {
  workspaceId: string;
  event: SentEventType;
  /** One line for a person: what happened, to what ("Run 1a2b3c4d (shop x ramp) failed: ..."). */
  text: string;
  runId?: string | null;
  studyId?: string | null;
  /** The app's page about it ("/runs/<id>"); the link is OPSBENCH_PUBLIC_URL + path. */
  path?: string | null;
  detail?: Record<string, unknown>;
  /** A test of one endpoint: the event goes there alone. */
  only?: { endpointId: string };
}

/** Records the event's deliveries and queues them; answers the event's id and the deliveries made (none: nobody subscribed). */
export async function notify(db: Db, queue: NotificationQueue, input: NotifyInput): Promise<{ eventId: string; deliveryIds: string[] }> {
  const eventId = randomUUID();
  const deliveryIds = await recordNotification(
    db,
    {
      id: eventId,
      event: input.event,
      workspace: await workspaceIdentity(db, input.workspaceId),
      runId: input.runId ?? null,
      studyId: input.studyId ?? null,
      text: input.text.length > 2000 ? `${input.text.slice(0, 1997)}...` : input.text,
      path: input.path ?? null,
      occurredAt: new Date().toISOString(),
      detail: input.detail ?? {},
    },
    input.only,
  );
  // jobId = deliveryId: enqueuing twice delivers once.
  for (const deliveryId of deliveryIds)
    await queue.add(
      "deliver",
      { deliveryId },
      { jobId: deliveryId, attempts: NOTIFICATION_ATTEMPTS, backoff: { type: NOTIFICATION_BACKOFF } },
    );
  return { eventId, deliveryIds };
}

/**
 * notify() bound to a database and a queue it opened, and the run's results export (docs/exports.md: the same moment,
 * a run's end, tells both); close() closes the queues.
 */
export function createNotifier(db: Db, redisUrl: string) {
  const queue = createNotificationQueue(redisUrl);
  const exports = createExportQueue(redisUrl);
  return {
    notify: (input: NotifyInput) => notify(db, queue, input),
    /** "run.failed" for a run that just ended FAILED (nothing when it is not FAILED or is gone). */
    runFailed: (runId: string) => notifyRunFailed(db, queue, runId),
    /** "change.detected" for each change the run's landing in its series confirmed. */
    newChanges: (runId: string) => notifyNewChanges(db, queue, runId),
    /** Queues a run that succeeded to the workspace's results exporters (none: nothing). */
    exportRun: (runId: string) => exportRun(db, exports, runId),
    close: async () => {
      await Promise.all([queue.close(), exports.close()]);
    },
  };
}
export type Notifier = ReturnType<typeof createNotifier>;

/** Tells the run's workspace that it failed, with its error; nothing for a run that is not FAILED. */
export async function notifyRunFailed(db: Db, queue: NotificationQueue, runId: string) {
  const run = await runNotice(db, runId);
  if (!run) return null;
  if (run.status !== "FAILED") return null;
  const error = run.error ?? "no error was recorded";
  return notify(db, queue, {
    workspaceId: run.workspaceId,
    event: "run.failed",
    text: `Run ${run.label} failed: ${error.length > 300 ? `${error.slice(0, 297)}...` : error}`,
    runId,
    studyId: run.studyId,
    path: `/runs/${runId}`,
    detail: { error },
  });
}

/** Tells the run's workspace that a gate failed on it (what the CLI's `opsbench compare` found); null for an unknown run. */
export async function notifyGateTripped(
  db: Db,
  queue: NotificationQueue,
  runId: string,
  gate: { baselineRunId: string; rules: { rule: string; message: string }[]; comparisonUrl?: string | undefined },
) {
  const run = await runNotice(db, runId);
  if (!run) return null;
  const rules = gate.rules.map((r) => r.rule).join("; ");
  return notify(db, queue, {
    workspaceId: run.workspaceId,
    event: "gate.tripped",
    text: `Gate tripped on run ${run.label} against baseline ${gate.baselineRunId.slice(0, 8)}: ${rules}`,
    runId,
    studyId: run.studyId,
    path: `/runs/${runId}`,
    detail: { baselineRunId: gate.baselineRunId, rules: gate.rules, comparisonUrl: gate.comparisonUrl ?? null },
  });
}

/**
 * A change is told once it is confirmed: found by the segmentation over the whole series (not by the newest-runs test
 * alone, whose alarms come and go: docs/statistics.md, about 4.6 passing alarms per 100 stationary runs and 0.15 that
 * stay) with at least this many runs from it on. The trend page draws the provisional ones too.
 */
export const CONFIRMING_RUNS = 3;

type TrendPoints = Parameters<typeof seriesChanges>[0];
const confirmed = (points: TrendPoints): SeriesChange[] =>
  CHANGE_METRICS.flatMap((m) => seriesChanges(points, m, { newestThreshold: Number.POSITIVE_INFINITY })).filter(
    (c) => c.index <= points.length - CONFIRMING_RUNS,
  );
const sameChange = (a: SeriesChange, b: SeriesChange) => a.metric === b.metric && Math.abs(a.index - b.index) <= 2;

/**
 * Tells the run's workspace of each change in the run's series (docs/trends.md) that this run confirmed: confirmed
 * with it, not without it, and not told before. Nothing for a run that is in no series, did not succeed, or confirms
 * nothing.
 */
export async function notifyNewChanges(db: Db, queue: NotificationQueue, runId: string) {
  const run = await seriesOfRun(db, runId);
  if (run?.status !== "SUCCEEDED") return [];
  const { key } = run;
  const { points } = await workspaceScope(db, run.workspaceId).series.points(key);
  if (!points.some((p) => p.id === runId)) return [];
  const known = confirmed(points.filter((p) => p.id !== runId));
  const fresh = confirmed(points).filter((c) => !known.some((k) => sameChange(k, c)));
  const told = [];
  for (const c of fresh) {
    if (await changeAlreadyTold(db, run.workspaceId, c)) continue;
    const range =
      c.commits.lastBefore || c.commits.firstAfter ? ` (commits ${c.commits.lastBefore ?? "?"}..${c.commits.firstAfter ?? "?"})` : "";
    const percent = `${c.relative >= 0 ? "+" : ""}${(c.relative * 100).toFixed(1)}%`;
    told.push(
      await notify(db, queue, {
        workspaceId: run.workspaceId,
        event: "change.detected",
        text: `Series ${seriesTitle(key)}: ${c.metric} changed ${percent}${range}, from run ${c.runId.slice(0, 8)} on`,
        runId: c.runId,
        path: `/series/${encodeURIComponent(seriesKeyText(key))}`,
        detail: { series: seriesKeyText(key), ...c },
      }),
    );
  }
  return told;
}
