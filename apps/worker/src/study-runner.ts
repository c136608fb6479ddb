// study.execute(studyId): runs a study's runs in their recorded order, each
// through the run pipeline in-process, holding the machine's load lock, with the
// study's cool-down since the machine last carried load. The Study row is the
// truth: an abort by request (status ABORTED) is seen within a second and ends
// the run under way through its AbortSignal; runs not started become ABORTED.
import { isFinalRunStatus } from "@opsbench/core";
import { loadStudyView, runStore, studyStore } from "@opsbench/db";
import { publishStudyUpdate, type StudyUpdate } from "@opsbench/jobs";
import { type HostHold, holdHost, sleep, type LoadLock } from "./load-lock";
import { executeRun, type PipelineDeps } from "./run-pipeline";

export interface StudyDeps extends PipelineDeps {
  lock: LoadLock;
  /** How often the Study row is checked for an abort (ms). */
  abortPollMs?: number;
}

export async function executeStudy(studyId: string, deps: StudyDeps, stop: AbortSignal): Promise<void> {
  const store = studyStore(deps.db, studyId);
  const log = deps.log.child({ studyId });
  const publish = async (update: Omit<StudyUpdate, "at" | "studyId">) => {
    try {
      const p = (await loadStudyView(deps.db, studyId, { merged: false })).progress;
      await publishStudyUpdate(deps.redis, { studyId, ...update, finished: p.finished, total: p.total, etaSeconds: p.etaSeconds });
    } catch (err) {
      log.warn({ err }, "publish failed");
    }
  };

  if (!(await store.claim())) {
    const status = await store.status();
    if (status !== "RUNNING") {
      log.info({ status }, "study already finished; skipping");
      return;
    }
    // Delivered again after a worker stopped mid-study: finished runs stay, the one
    // that was under way is failed by the pipeline (load cannot resume), the rest run.
    log.warn("study was interrupted; resuming with the runs not yet finished");
  }
  const study = await store.get();
  log.info({ runs: study.runs.length, order: study.runOrder, seed: study.seed }, "study started");
  await publish({ kind: "status", status: "RUNNING" });

  // Ends waits (lock, cool-down) and the run under way: on abort by request or worker shutdown.
  const ending = new AbortController();
  let abortedByRequest = false;
  const onStop = () => ending.abort(new Error("the worker is stopping"));
  stop.addEventListener("abort", onStop, { once: true });
  if (stop.aborted) onStop();
  const watch = setInterval(() => {
    store.status().then(
      (s) => {
        if (s === "ABORTED" && !ending.signal.aborted) {
          abortedByRequest = true;
          log.info("study aborted by request");
          ending.abort(new Error("the study was aborted"));
        }
      },
      (err) => log.warn({ err }, "could not check the study's status"),
    );
  }, deps.abortPollMs ?? 1000);

  let unexpected: string | null = null;
  try {
    for (const run of study.runs) {
      if (ending.signal.aborted) break;
      if (isFinalRunStatus((await runStore(deps.db, run.id).get()).status)) continue;
      let host: HostHold;
      try {
        // The cool-down counts from the end of the last load on this host (ours, a single run's, another worker's).
        host = await holdHost(deps.lock, ending.signal, async () => {
          const last = deps.lock.lastReleasedAt;
          if (last !== null) await sleep(last + study.cooldownSeconds * 1000 - Date.now(), ending.signal);
        });
      } catch (err) {
        if (ending.signal.aborted) break;
        throw err;
      }
      try {
        log.info({ runId: run.id, position: run.position, round: run.round }, "study run starting");
        await publish({ kind: "run", runId: run.id, runStatus: "STARTING" });
        // executeRun handles its own failures (the run ends FAILED); the study goes on with the next run.
        await executeRun(run.id, deps, ending.signal, { baselineWaitMs: study.baselineWaitSeconds * 1000, host });
      } finally {
        await host.release();
      }
      const after = await runStore(deps.db, run.id).get();
      await publish({ kind: "run", runId: run.id, runStatus: after.status });
    }
  } catch (err) {
    unexpected = err instanceof Error ? err.message : String(err);
    log.error({ err }, "study failed unexpectedly");
  } finally {
    clearInterval(watch);
    stop.removeEventListener("abort", onStop);
  }

  let status: "SUCCEEDED" | "FAILED" | "ABORTED";
  let error: string | null = null;
  if (ending.signal.aborted || unexpected) {
    status = unexpected && !ending.signal.aborted ? "FAILED" : "ABORTED";
    error = unexpected ?? (abortedByRequest ? "aborted by request" : "the worker stopped before the study finished");
    const closed = await store.closeRemaining(
      status,
      status === "ABORTED" ? (abortedByRequest ? "the study was aborted" : "the worker stopped") : `the study failed: ${unexpected}`,
    );
    log.info({ closed: closed.count }, "remaining runs closed");
  } else {
    const runs = (await store.get()).runs;
    const notOk = runs.filter((r) => r.status !== "SUCCEEDED").length;
    status = notOk ? "FAILED" : "SUCCEEDED";
    if (notOk) error = `${notOk} of ${runs.length} runs did not succeed`;
  }
  // An abort by request has already set ABORTED (with its own time); finish() does not overwrite it.
  await store.finish(status, error);
  const final = await store.status();
  await publish({ kind: "status", status: final });
  log.info({ status: final, error }, "study finished");
}
