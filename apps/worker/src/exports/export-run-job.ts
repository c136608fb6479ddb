// The "results-exports" queue's handler (docs/exports.md): one attempt at sending one run's per-second series to one
// exporter, recorded on its row whatever happens. A failed attempt throws, so BullMQ tries again after the worker's
// backoff until EXPORT_ATTEMPTS are spent. Final at once: an egress refusal, a disabled exporter, and a 4xx other than
// 429 (remote write 1.0: "MUST NOT retry" a 4xx; the same body would be refused again).
import { runExportSeries } from "@opsbench/core";
import { type Db, type ExportStatus, openExport, recordExportAttempt, runExportFacts } from "@opsbench/db";
import type { ExportJobPayload } from "@opsbench/jobs";
import { type Job, UnrecoverableError } from "bullmq";
import type { Logger } from "../logger";
import { EgressRefused, type EgressPolicy } from "../notifications/egress";
import type { SendOutcome } from "../notifications/webhook-send";
import { OTLP_HEADERS, otlpMetricsBody } from "./otlp";
import { authorization, type ExportCredential, postExport } from "./post-pinned";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "./remote-write";

export interface ExportDeps {
  db: Db;
  /** OPSBENCH_SECRET_KEY: opens the exporters' credentials. */
  secretKey: string | undefined;
  policy: EgressPolicy;
  log: Logger;
  timeoutMs?: number;
}

class FinalFailure extends Error {}

export function exportRunJob(deps: ExportDeps) {
  return async ({ exportId }: ExportJobPayload, job: Job): Promise<{ status: string }> => {
    const at = new Date().toISOString();
    const started = Date.now();
    const record = (outcome: SendOutcome, status: ExportStatus, sent?: { series: number; samples: number }) =>
      recordExportAttempt(
        deps.db,
        exportId,
        { at, ok: outcome.ok, code: outcome.code, error: outcome.error, ms: Date.now() - started },
        status,
        sent,
      );
    let opened: Awaited<ReturnType<typeof openExport>>;
    try {
      opened = await openExport(deps.db, exportId, deps.secretKey);
    } catch (err) {
      const error = `the exporter's credential could not be opened: ${(err as Error).message}`;
      await record({ ok: false, code: null, error }, "failed");
      throw new UnrecoverableError(error);
    }
    if (!opened) return { status: "gone" };
    if (opened.status !== "pending") return { status: opened.status };
    const { exporter } = opened;
    let outcome: SendOutcome;
    let final = false;
    let sent: { series: number; samples: number } | undefined;
    try {
      if (!exporter.enabled) throw new FinalFailure("the exporter was disabled");
      const facts = await runExportFacts(deps.db, opened.runId);
      if (!facts) throw new FinalFailure("the run is gone");
      const series = runExportSeries(facts);
      sent = { series: series.length, samples: series.reduce((n, s) => n + s.points.length, 0) };
      const credential: ExportCredential =
        exporter.auth === "bearer"
          ? { auth: "bearer", token: exporter.secret ?? "" }
          : exporter.auth === "basic"
            ? { auth: "basic", username: exporter.username ?? "", password: exporter.secret ?? "" }
            : { auth: "none" };
      const [body, headers] =
        exporter.kind === "prometheus-remote-write"
          ? [remoteWriteBody(series), REMOTE_WRITE_HEADERS]
          : [otlpMetricsBody(series), OTLP_HEADERS];
      outcome = await postExport(exporter.url, body, { ...headers, ...authorization(credential) }, deps.policy, {
        ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
      });
      if (!outcome.ok && outcome.code !== null && outcome.code >= 400 && outcome.code < 500 && outcome.code !== 429) final = true;
    } catch (err) {
      final = err instanceof EgressRefused || err instanceof FinalFailure;
      outcome = { ok: false, code: null, error: (err as Error).message };
    }
    const last = final || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    await record(outcome, outcome.ok ? "delivered" : last ? "failed" : "pending", sent);
    if (outcome.ok) return { status: "delivered" };
    deps.log.warn(
      { exportId, exporter: exporter.id, attempt: job.attemptsMade + 1, error: outcome.error, last },
      "results export not delivered",
    );
    if (last) throw new UnrecoverableError(outcome.error ?? "not delivered");
    throw new Error(outcome.error ?? "not delivered");
  };
}
