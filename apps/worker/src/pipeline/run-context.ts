// What every step of a run gets: the run's store, its logger, the progress publisher, the abort signal, and the
// services the worker was started with. It is read-only: what a step finds (the target, the credential, the admitted
// load host, the deployment) it returns, and run-pipeline.ts hands it to the steps that need it.
import type { K6Settings } from "../runner-client";
import type { RunStatusName } from "@opsbench/core";
import { retryingMethods, runStore, type Db, type OutageWait, type RunStore } from "@opsbench/db";
import { type Notifier, publishRunUpdate, type Publisher, type RunUpdate } from "@opsbench/jobs";
import type { CredentialSecret, LoadHostAllowlist } from "@opsbench/core";
import type { ProviderContext, ProviderEndpoints } from "@opsbench/providers";
import type { HostHold } from "../load-lock";
import type { Logger } from "../logger";
import type { SegmentSettings } from "../segments/segment-settings";

export interface PipelineDeps {
  db: Db;
  redis: Publisher;
  log: Logger;
  k6: K6Settings;
  benchappsDir: string;
  workDir: string;
  /** OPSBENCH_HELM: renders kubernetes targets' charts. */
  helm?: string;
  /** Where local targets' databases are made (OPSBENCH_APP_DATABASE_URL, else DATABASE_URL). */
  appDatabaseUrl?: string;
  /** Ids of the runs this process is executing now (its heartbeat lists them; the reconciler leaves them alone). */
  live?: Set<string>;
  /** How long a run's writes wait for a database that is down before they fail (ms; default DEFAULT_DB_OUTAGE_WAIT_MS). */
  dbOutageWaitMs?: number;
  /** OPSBENCH_SECRET_KEY: opens the workspace credentials targets name. */
  secretKey?: string;
  /** API stand-ins from the worker's environment (OPSBENCH_AWS_ENDPOINT_URL, OPSBENCH_GCP_ENDPOINT_URL). */
  endpoints?: ProviderEndpoints;
  /** OPSBENCH_LOAD_ALLOWED_HOSTS: where load may go that opsbench did not start (absent: loopback only). */
  loadHosts?: LoadHostAllowlist;
  /** OPSBENCH_DNS_SERVERS: the name servers for a target's address and its TXT proof (empty: the system's resolver). */
  dnsServers?: string[];
  /** OPSBENCH_LOAD_PRIVATE_RANGES: private or shared ranges where a proof or a deploy's answer may admit an address. */
  privateRanges?: string[];
  /**
   * Tells a run's workspace that it failed or changed its series (webhooks, e-mail), and sends a run that succeeded to
   * its results exporters; absent: nobody is told (a test's pipeline).
   */
  notifier?: Pick<Notifier, "runFailed" | "newChanges" | "exportRun">;
  /** Splitting a run over load generators (workload `generators`); a worker without it refuses such runs. */
  segments?: SegmentSettings;
}

/** Five minutes: a restart or a failover of Postgres, not a database that is gone. */
export const DEFAULT_DB_OUTAGE_WAIT_MS = 5 * 60_000;

export interface RunContext {
  readonly runId: string;
  readonly deps: PipelineDeps;
  /** Aborts on SIGTERM (or when a study stops): steps stop, teardown still runs. */
  readonly signal: AbortSignal;
  readonly store: RunStore;
  readonly log: Logger;
  /** Tells browsers to look again (the row stays the truth); a failed publish is logged, never thrown. */
  readonly publish: (kind: RunUpdate["kind"], status?: RunStatusName) => Promise<unknown>;
  /** Writes the run's status, then publishes it. */
  readonly moveTo: (status: RunStatusName, data?: { error?: string | null; finishedAt?: Date }) => Promise<void>;
  /** This machine's load lock as the run holds it: proofs of ownership step away from it (load-host-check.ts). */
  readonly host?: HostHold;
}

/** How a run's writes wait for the database: bounded, and said once per write in the log. */
export function outageWait(deps: PipelineDeps, log: Logger): OutageWait {
  return {
    maxWaitMs: deps.dbOutageWaitMs ?? DEFAULT_DB_OUTAGE_WAIT_MS,
    onWait: (err) => log.warn({ err: String(err) }, "database unreachable: waiting for it"),
  };
}

export function runContext(runId: string, deps: PipelineDeps, signal: AbortSignal, host?: HostHold): RunContext {
  const log = deps.log.child({ runId });
  // Status, steps, summary and events wait for a database that is down (bounded), so the run still ends in a final state.
  const store = retryingMethods(runStore(deps.db, runId), outageWait(deps, log));
  const publish: RunContext["publish"] = (kind, status) =>
    publishRunUpdate(deps.redis, { runId, kind, ...(status ? { status } : {}) }).catch((err) => log.warn({ err }, "publish failed"));
  return {
    runId,
    deps,
    signal,
    store,
    log,
    publish,
    moveTo: async (status, data) => {
      await store.setStatus(status, data);
      await publish("status", status);
    },
    ...(host ? { host } : {}),
  };
}

/**
 * The run as a provider sees it, with the credential the target names (opened by target-credential.ts; null: none).
 * Partial deploy state is saved on the PROVISION step, so teardown can find it.
 */
export function providerContext(ctx: RunContext, credential: CredentialSecret | null): ProviderContext {
  return {
    runId: ctx.runId,
    signal: ctx.signal,
    benchappsDir: ctx.deps.benchappsDir,
    ...(ctx.deps.helm ? { helm: ctx.deps.helm } : {}),
    ...(ctx.deps.appDatabaseUrl ? { appDatabaseUrl: ctx.deps.appDatabaseUrl } : {}),
    log: (msg, data) => ctx.log.info({ ...data }, msg),
    saveState: (state) => ctx.store.stepDetail("PROVISION", { state }).then(() => undefined),
    event: (level, message, data) => ctx.store.event(level, message, data, new Date()).then(() => undefined),
    ...(credential ? { credential } : {}),
    ...(ctx.deps.endpoints ? { endpoints: ctx.deps.endpoints } : {}),
    ...(ctx.deps.loadHosts ? { loadHosts: ctx.deps.loadHosts } : {}),
    ...(ctx.deps.k6.blockPorts ? { protectedPorts: ctx.deps.k6.blockPorts } : {}),
  };
}
