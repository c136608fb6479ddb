// A worker's ordered stop: stop beating (it no longer takes jobs) and taking maintenance ticks, pull every abort
// (k6 stops gracefully and its results are kept, the target is torn down, the run ends ABORTED), wait for each
// consumer's job under way to end, then close the queues, Redis and Postgres. The bound on how long this may take
// is the process's (main.ts): whatever is not done by then is left to the next start's reconciler.
import type { Worker } from "bullmq";
import type { InFlight } from "./in-flight";
import type { Logger } from "./logger";
import type { Services } from "./services";

export interface Stoppable {
  heartbeat: { stop(): Promise<void> };
  maintenance: { stop(): Promise<void> } | null;
  inFlight: InFlight;
  consumers: Worker[];
  services: Services;
  log: Logger;
}

export async function shutDown(
  { heartbeat, maintenance, inFlight, consumers, services, log }: Stoppable,
  why: { signal: string; graceSeconds?: number },
) {
  const started = Date.now();
  log.info({ ...why, running: [...inFlight.live.runs], studies: inFlight.studyIds() }, "shutting down");
  await heartbeat.stop();
  await maintenance?.stop();
  inFlight.abortAll();
  // Each waits for its current job, which now ends as ABORTED after teardown.
  await Promise.all(consumers.map((c) => c.close()));
  await services.close();
  log.info({ ms: Date.now() - started }, "stopped");
}
