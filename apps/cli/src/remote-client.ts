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
  runCreatedSchema,
  runViewSchema,
  type StudyViewAnswer,
  studyCreatedSchema,
  studyViewSchema,
  windowSummarySchema,
  workloadItemSchema,
  gateTrippedSchema,
  type GateTrippedInput,
} from "@opsbench/api";
import type { K6ImportUpload, RunProvenance, StudyInput } from "@opsbench/core";

export interface Remote {
  url: string;
  token: string;
}

/** The server refused the input (422) or knows no such thing (404): the caller's mistake, exit 2. */
export class RemoteInputError extends Error {}

export async function call(remote: Remote, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${remote.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${remote.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((err: Error & { cause?: { code?: string; message?: string } }) => {
    throw new Error(`cannot reach ${remote.url} (OPSBENCH_URL): ${err.cause?.code ?? err.cause?.message ?? err.message}`);
  });
  const answer: unknown = await res.json().catch(() => null);
  if (res.ok) return answer;
  const message = apiErrorBodySchema.safeParse(answer).data?.error.message ?? `HTTP ${res.status}`;
  if (res.status === 401) throw new Error(`${remote.url} refused the token (401): ${message}`);
  if (res.status === 403) throw new Error(`${remote.url} refused (403): ${message}`);
  if (res.status === 404 || res.status === 422) throw new RemoteInputError(message);
  if (res.status === 413) throw new RemoteInputError(`${remote.url} refused it as too large (413): ${message}`);
  throw new Error(`${method} ${path} answered ${res.status}: ${message}`);
}

export async function remoteRunReport(remote: Remote, id: string): Promise<RunViewAnswer> {
  return runViewSchema.parse(await call(remote, "GET", `/api/v1/runs/${encodeURIComponent(id)}`));
}

/** Creates a run of the named target and workload on the server; its id. */
export async function remoteStartRun(remote: Remote, target: string, workload: string, provenance: RunProvenance = {}): Promise<string> {
  return runCreatedSchema.parse(await call(remote, "POST", "/api/v1/runs", { target, workload, provenance })).id;
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
  return workloadItemSchema.parse(await call(remote, "POST", "/api/v1/workloads", input));
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
  await call(remote, "POST", `/api/v1/studies/${encodeURIComponent(id)}/abort`, {});
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
