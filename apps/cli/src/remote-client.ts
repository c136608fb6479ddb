// The CLI against a running opsbench server (OPSBENCH_URL + OPSBENCH_TOKEN): the same commands through the
// REST API, with the same output and exit codes as against the database.
// Every answer is parsed with @opsbench/api's schema of it, the one the server's contracts declare.
import {
  apiErrorBodySchema,
  baselineRunsSchema,
  baselineSchema,
  baselinesSchema,
  comparisonVerdictsSchema,
  type ExternalRunInput,
  externalRunCreatedSchema,
  RUN_CV_PARAM,
  type RunViewAnswer,
  runAbortSchema,
  runCreatedSchema,
  runViewSchema,
  type StudyViewAnswer,
  studyCreatedSchema,
  studyViewSchema,
  windowSummarySchema,
  workloadItemSchema,
  workloadRenamedSchema,
  gateTrippedSchema,
  type GateTrippedInput,
} from "@opsbench/api";
import type { K6ImportUpload, RunProvenance, StudyInput } from "@opsbench/core";
import { ServerUnreachable } from "./exit-codes";

export interface Remote {
  url: string;
  token: string;
  /** How long one request may take, its answer's body included (ms); DEFAULT_REQUEST_TIMEOUT_MS when not set. */
  timeoutMs?: number | undefined;
  /** For how long after a call started a failure to reach the server is tried again (ms); DEFAULT_RETRY_FOR_MS when not set. */
  retryForMs?: number | undefined;
  /** Ends the call under way and any wait before a retry (the command was interrupted). */
  signal?: AbortSignal | undefined;
  /** Where a retry is said (stderr). */
  say?: ((m: string) => void) | undefined;
}

/** A request without an answer after a minute is taken as lost (a workload's check on a worker takes seconds). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Two minutes of retries ride out a proxy's restart or a server's redeploy without holding a CI job for long. */
export const DEFAULT_RETRY_FOR_MS = 120_000;
/** The waits between tries: 0.5 s doubling up to 8 s, each varied by up to a fifth so many clients do not retry in step. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** The server refused the input (422) or knows no such thing (404): the caller's mistake, exit 2. */
export class RemoteInputError extends Error {}

/** The server refused a change in the present state of things (409: a name taken, a resource still used). */
export class RemoteConflictError extends Error {}

/**
 * Whether a call may be sent again after a failure that may have reached the server. "safe": a GET, or a POST whose
 * repetition changes nothing more (saving a workload replaces the one of that name; aborting a final run is a no-op).
 * "unsent-only": a POST that creates something (a run, a study, an import, a baseline mark): sent again only when
 * the first try surely never reached the server (connection refused, name not resolved), since the API takes no
 * idempotency key that would let the server tell a repeat from a second request.
 */
export type Replay = "safe" | "unsent-only";

/** Network errors that mean the request never left this machine (no connection was made). */
const UNSENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);
/** A proxy's (or load balancer's) answers when the server behind it is down, restarting or slow. */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

interface Transient {
  problem: string;
  /** Whether the server may have acted on the request. */
  maybeSent: boolean;
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/**
 * One API call: each try bounded by the request timeout, a try that cannot reach the server (no connection, no
 * answer in time, a gateway's 502/503/504) tried again with backoff while the call's retry budget lasts (see
 * Replay for which), then ServerUnreachable (exit 69) naming the URL.
 */
export async function call(remote: Remote, method: string, path: string, body?: unknown, replay?: Replay): Promise<unknown> {
  const mayReplay = replay ?? (method === "GET" ? "safe" : "unsent-only");
  const timeoutMs = remote.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const retryForMs = remote.retryForMs ?? DEFAULT_RETRY_FOR_MS;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptCall(remote, method, path, body, timeoutMs);
    if (!("problem" in outcome)) return outcome.answer;
    const elapsed = Date.now() - started;
    const wait = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
    const tries = `${attempt} ${attempt === 1 ? "try" : "tries"} in ${(elapsed / 1000).toFixed(1)} s`;
    if (outcome.maybeSent && mayReplay === "unsent-only")
      throw new ServerUnreachable(
        `cannot reach ${remote.url} (OPSBENCH_URL): ${method} ${path} ${outcome.problem}; not sent again, since the server may have acted on it (look at ${remote.url} before running again)`,
      );
    if (elapsed + wait > retryForMs)
      throw new ServerUnreachable(
        `cannot reach ${remote.url} (OPSBENCH_URL): ${method} ${path} ${outcome.problem} (${tries}; OPSBENCH_RETRY_FOR sets how long to keep trying)`,
      );
    remote.say?.(`${method} ${path} ${outcome.problem}: trying again in ${(wait / 1000).toFixed(1)} s`);
    await sleep(wait, remote.signal);
  }
}

/** One try: the answer, or why the server could not be reached; any other failure is thrown. */
async function attemptCall(
  remote: Remote,
  method: string,
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<{ answer: unknown } | Transient> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = remote.signal ? AbortSignal.any([remote.signal, timeout]) : timeout;
  /** Why a fetch or a body read failed: the command's interrupt is passed on, anything else is transient. */
  const failure = (err: unknown): Transient => {
    if (remote.signal?.aborted) throw remote.signal.reason;
    if (timeout.aborted) return { problem: `got no answer within ${timeoutMs / 1000} s (OPSBENCH_REQUEST_TIMEOUT)`, maybeSent: true };
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const code = e.cause?.code;
    return { problem: `failed: ${code ?? e.cause?.message ?? e.message}`, maybeSent: !(code && UNSENT_CODES.has(code)) };
  };
  let res: Response;
  try {
    res = await fetch(`${remote.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${remote.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    return failure(err);
  }
  if (GATEWAY_STATUSES.has(res.status)) {
    await res.body?.cancel().catch(() => {});
    return { problem: `answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`, maybeSent: true };
  }
  let answer: unknown = null;
  try {
    const text = await res.text();
    answer = text ? JSON.parse(text) : null;
  } catch (err) {
    // A body cut off by the timeout or the connection is the server not answering; one that is not JSON is read as none.
    if (!(err instanceof SyntaxError)) return failure(err);
  }
  if (res.ok) return { answer };
  const message = apiErrorBodySchema.safeParse(answer).data?.error.message ?? `HTTP ${res.status}`;
  if (res.status === 401) throw new Error(`${remote.url} refused the token (401): ${message}`);
  if (res.status === 403) throw new Error(`${remote.url} refused (403): ${message}`);
  if (res.status === 404 || res.status === 422) throw new RemoteInputError(message);
  if (res.status === 413) throw new RemoteInputError(`${remote.url} refused it as too large (413): ${message}`);
  if (res.status === 409) throw new RemoteConflictError(`${method} ${path} answered 409: ${message}`);
  throw new Error(`${method} ${path} answered ${res.status}: ${message}`);
}

export async function remoteRunReport(remote: Remote, id: string): Promise<RunViewAnswer> {
  return runViewSchema.parse(await call(remote, "GET", `/api/v1/runs/${encodeURIComponent(id)}`));
}

/** Creates a run of the named target and workload on the server; its id. */
export async function remoteStartRun(
  remote: Remote,
  target: string,
  workload: string,
  provenance: RunProvenance = {},
  script: { env?: Record<string, string>; secrets?: string[] } = {},
): Promise<string> {
  const { env, secrets } = script;
  const body = {
    target,
    workload,
    provenance,
    ...(env && Object.keys(env).length ? { env } : {}),
    ...(secrets?.length ? { secrets } : {}),
  };
  return runCreatedSchema.parse(await call(remote, "POST", "/api/v1/runs", body)).id;
}

/**
 * Renames a workload (PUT /api/v1/workloads/{from}): "renamed", "missing" (no workload `from`) or "taken" (one named
 * `to` exists already). Its runs and baselines follow it on the server.
 */
export async function remoteRenameWorkload(remote: Remote, from: string, to: string): Promise<"renamed" | "missing" | "taken"> {
  try {
    workloadRenamedSchema.parse(await call(remote, "PUT", `/api/v1/workloads/${encodeURIComponent(from)}`, { name: to }, "safe"));
    return "renamed";
  } catch (err) {
    if (err instanceof RemoteConflictError) return "taken";
    if (err instanceof RemoteInputError) return "missing";
    throw err;
  }
}

/** Creates a run fed by k6 started elsewhere (POST /api/v1/runs/external); its ingest token and settings. */
export async function remoteCreateExternalRun(remote: Remote, input: ExternalRunInput) {
  return externalRunCreatedSchema.parse(await call(remote, "POST", "/api/v1/runs/external", input));
}

/** Marks a run as its target and workload's baseline (POST /api/v1/runs/{id}/baseline). */
export async function remoteSetBaseline(remote: Remote, runId: string) {
  return baselineSchema.parse(await call(remote, "POST", `/api/v1/runs/${encodeURIComponent(runId)}/baseline`, {}));
}

/** The workspace's baselines, of one target and workload when named (GET /api/v1/baselines). */
export async function remoteBaselines(remote: Remote, filter: { target?: string; workload?: string } = {}) {
  const query = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => Boolean(e[1])));
  return baselinesSchema.parse(await call(remote, "GET", `/api/v1/baselines${query.size ? `?${query}` : ""}`));
}

/**
 * The last `runs` succeeded runs of a baseline run's series ending at it, the run first (GET
 * /api/v1/runs/{id}/baseline), `exclude` (the candidate) left out; fewer when the series holds fewer.
 */
export async function remoteBaselineRuns(remote: Remote, baselineId: string, runs: number, exclude: string) {
  const query = new URLSearchParams({ runs: String(runs), exclude });
  return baselineRunsSchema.parse(await call(remote, "GET", `/api/v1/runs/${encodeURIComponent(baselineId)}/baseline?${query}`));
}

/** What a gate compares: the baseline side's runs (one, or the last N) and the candidate run, and a stated run-to-run CV. */
export interface GateSelection {
  baselineIds: readonly string[];
  candidateId: string;
  /** The run-to-run coefficient of variation, percent (`--run-cv`). */
  runCvPercent?: number | undefined;
}

/** The comparison's selection as the API and the compare page take it: the baseline group first, then the run-to-run CV. */
export const comparisonQuery = (s: GateSelection) =>
  new URLSearchParams([
    ["g", `baseline:${s.baselineIds.join(",")}`],
    ["g", `candidate:${s.candidateId}`],
    ...(s.runCvPercent === undefined ? [] : [[RUN_CV_PARAM, String(s.runCvPercent)]]),
  ]);

/** The verdict engine's verdicts on a candidate run against the baseline group (GET /api/v1/comparisons). */
export async function remoteVerdicts(remote: Remote, s: GateSelection) {
  return comparisonVerdictsSchema.parse(await call(remote, "GET", `/api/v1/comparisons?${comparisonQuery(s)}`)).verdicts;
}

/** Saves a workload (POST /api/v1/workloads: creates it, or replaces the one of that name); the server checks it first. */
export async function remotePutWorkload(remote: Remote, input: { name: string; spec: unknown }): Promise<{ id: string; name: string }> {
  return workloadItemSchema.parse(await call(remote, "POST", "/api/v1/workloads", input, "safe"));
}

/** The summary of seconds [from, to) after the run's load started (GET /api/v1/runs/{id}/summary); null before any data. */
export async function remoteWindowSummary(remote: Remote, id: string, from: number, to: number) {
  const query = new URLSearchParams({ from: String(from), to: String(to) });
  return windowSummarySchema.parse(await call(remote, "GET", `/api/v1/runs/${encodeURIComponent(id)}/summary?${query}`));
}

/** Uploads a k6 result file's aggregate (POST /api/v1/imports/k6); the imported run's id. */
export async function remoteImportK6(remote: Remote, upload: K6ImportUpload): Promise<string> {
  return runCreatedSchema.parse(await call(remote, "POST", "/api/v1/imports/k6", upload)).id;
}

/** Creates a study on the server (POST /api/v1/studies); its id, run order, seed and size. */
export async function remoteStartStudy(remote: Remote, input: StudyInput) {
  return studyCreatedSchema.parse(await call(remote, "POST", "/api/v1/studies", input));
}

export async function remoteAbortStudy(remote: Remote, id: string): Promise<void> {
  await call(remote, "POST", `/api/v1/studies/${encodeURIComponent(id)}/abort`, {}, "safe");
}

/** Aborts a run (POST /api/v1/runs/{id}/abort): whether it was under way, and its status now. Repeating it changes nothing. */
export async function remoteAbortRun(remote: Remote, id: string) {
  return runAbortSchema.parse(await call(remote, "POST", `/api/v1/runs/${encodeURIComponent(id)}/abort`, {}, "safe"));
}

export async function remoteStudyReport(remote: Remote, id: string): Promise<StudyViewAnswer> {
  return studyViewSchema.parse(await call(remote, "GET", `/api/v1/studies/${encodeURIComponent(id)}`));
}

/**
 * Reports a failed gate to the server (POST /api/v1/runs/{id}/gate-tripped), which tells the workspace's webhooks and
 * e-mail subscribed to gate.tripped; answers how many deliveries it queued.
 */
export async function remoteGateTripped(remote: Remote, runId: string, input: GateTrippedInput): Promise<number> {
  return gateTrippedSchema.parse(await call(remote, "POST", `/api/v1/runs/${encodeURIComponent(runId)}/gate-tripped`, input)).deliveries;
}
