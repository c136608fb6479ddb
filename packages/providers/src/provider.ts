// One interface for every kind of target (docs/architecture.md). A deployment's
// `state` is plain JSON: the worker stores it with the PROVISION step, so a
// later attempt (or another worker) can tear down what this one made.
import type { CredentialSecret, TargetKind, TargetSpecOf, LoadHostAllowlist, ProtectedPort, ValidityFlag } from "@opsbench/core";
import type { ZodType } from "zod";

/** Stand-ins for the cloud APIs (emulators on loopback), from the worker's environment only, never from a request or a spec. */
export interface ProviderEndpoints {
  /** OPSBENCH_AWS_ENDPOINT_URL: every AWS SDK client's endpoint (moto in the tests). */
  aws?: string;
  /** OPSBENCH_GCP_ENDPOINT_URL: every Google Cloud client's endpoint (the tests' fake). */
  gcp?: string;
}

export interface ProviderContext {
  runId: string;
  signal: AbortSignal;
  log: (msg: string, data?: Record<string, unknown>) => void;
  /** Folder holding the benchapps (benchapps/ at the repo root). */
  benchappsDir: string;
  /** Persists partial state while deploy() is still working, so a crash leaves a trail to clean up. */
  saveState: (state: unknown) => Promise<void>;
  /** Records an event on the run's timeline (scaling decisions, limits not enforced...). Optional: not every caller has a run. */
  event?: (level: "info" | "warn", message: string, data?: Record<string, unknown>) => Promise<void>;
  /** The workspace credential the target names (`credential: "<name>"`), opened and checked by the worker before deploy. */
  credential?: CredentialSecret;
  /** API stand-ins from the worker's environment (tests, emulators). */
  endpoints?: ProviderEndpoints;
  /** OPSBENCH_LOAD_ALLOWED_HOSTS: where a kubeconfig's server may be besides loopback (kube-client.ts kubeServerVerdict). */
  loadHosts?: LoadHostAllowlist;
  /** The ports of opsbench's own services: never a kubeconfig's server. */
  protectedPorts?: readonly ProtectedPort[];
  /**
   * A Postgres URL whose role may create roles and databases: local targets' `database`s are made there, one role and
   * database per deployment (OPSBENCH_APP_DATABASE_URL, else the worker's DATABASE_URL).
   */
  appDatabaseUrl?: string;
  /** OPSBENCH_HELM: the pinned helm binary that renders a kubernetes target's chart (apps/worker/helm-build/build.mjs). */
  helm?: string;
}

export interface Deployment<State = unknown> {
  /** Base URL the load goes to. */
  endpoint: string;
  state: State;
  /** Reasons to read this run's numbers with care that come from how the load reaches the target (e.g. a port-forward). */
  flags?: ValidityFlag[];
}

export interface InfraPoint {
  ts: Date;
  replicas: number;
  cpuPercent: number | null;
  detail?: Record<string, unknown>;
}

export interface ObserveWindow {
  signal: AbortSignal;
  intervalMs?: number;
}

export interface Provider<Spec = unknown, State = unknown> {
  kind: string;
  spec: ZodType<Spec>;
  deploy(spec: Spec, ctx: ProviderContext): Promise<Deployment<State>>;
  reset(dep: Deployment<State>, ctx: ProviderContext): Promise<void>;
  observe(dep: Deployment<State>, window: ObserveWindow, ctx: ProviderContext): AsyncIterable<InfraPoint>;
  teardown(dep: Deployment<State> | { state: Partial<State> }, ctx: ProviderContext): Promise<void>;
  /** Checks the app itself after the load (e.g. the shop's consistency check), if the target has any. */
  appChecks?(spec: Spec, dep: Deployment<State>, ctx: ProviderContext): Promise<AppCheck[]>;
  /**
   * True when the load goes to an address opsbench did not start itself (an existing URL, a cloud platform's
   * address, a user's ingress or endpointUrl): the worker's host policy (core load-hosts/load-host-policy.ts) must allow it
   * right after deploy, before one request is sent. Absent: the kind only serves what opsbench started.
   */
  outsideEndpoint?(spec: Spec): boolean;
  /**
   * With outsideEndpoint: the address the load will go to when the spec already says it (an endpoint's url, an
   * endpointUrl, a kubernetes ingress), so the host policy is asked before anything is deployed; null when only the
   * deploy tells it (the platform's own address).
   */
  knownEndpoint?(spec: Spec): string | null;
  /**
   * With outsideEndpoint: true when an address only the deploy tells is named by the platform itself for what this run
   * made (an ALB's DNS name, a Lambda function URL, a Cloud Run uri), which no user can point at another's host; the
   * worker admits it as created by the run. Absent: whatever the deploy answers (a load balancer's address or a Knative
   * URL that a cluster reports: the user's kubeconfig names the cluster, which may report anything) is judged like a
   * typed URL (the allowlist or a proof of ownership).
   */
  platformNamesEndpoint?: boolean;
  /** For kinds that can list what they left on a platform: the worker's reaper (apps/worker/src/reaper.ts) uses it. */
  reaper?: ProviderReaper;
}

/**
 * The provider of a kind of the catalog (core kinds/): named as that kind and deploying that kind's spec, so the
 * registry (index.ts) refuses a provider filed under another kind's name.
 */
export type KindProvider<K extends TargetKind, State = unknown> = Provider<TargetSpecOf<K>, State> & { kind: K };

/** What the reaper gets: one workspace credential of the reaper's kind, opened. */
export interface ReaperContext {
  credential: CredentialSecret;
  endpoints?: ProviderEndpoints;
  /** OPSBENCH_LOAD_ALLOWED_HOSTS: where a kubeconfig's server may be besides loopback. */
  loadHosts?: LoadHostAllowlist;
  protectedPorts?: readonly ProtectedPort[];
  signal?: AbortSignal;
  log: (msg: string, data?: Record<string, unknown>) => void;
}

/**
 * Lists and deletes resources by the run they belong to (label / tag opsbench-run), not by recorded ids. It is visited
 * with each workspace credential of the kind its target kind takes (core kinds/: `credential`).
 */
export interface ProviderReaper {
  /** Ids of runs that have resources on the platform this credential reaches. */
  listRuns(ctx: ReaperContext): Promise<string[]>;
  /** Deletes one run's resources and waits until they are gone. */
  deleteRun(runId: string, ctx: ReaperContext): Promise<void>;
}

/** The outcome of an app-level check run after the load. */
export interface AppCheck {
  name: string;
  ok: boolean;
  message: string;
  detail?: unknown;
}

/** An expected failure of a provider, with a message meant for the user. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly detail?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/** What a credential's check against its platform gets (credential-checks.ts). */
export interface CredentialCheckContext {
  signal?: AbortSignal;
  /** API stand-ins from the worker's environment. */
  endpoints?: ProviderEndpoints;
  /** OPSBENCH_LOAD_ALLOWED_HOSTS: where a kubeconfig's server may be besides loopback (absent: loopback only). */
  loadHosts?: LoadHostAllowlist;
  /** The ports of opsbench's own services: never a kubeconfig's server. */
  protectedPorts?: readonly ProtectedPort[];
}

export type CredentialCheckResult = { ok: true; identity: string | null } | { ok: false; message: string };
