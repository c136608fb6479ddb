// Every /api/v1 route's contract: its input (path params, query, body) and, per status, the schema of what it
// answers, all of them @opsbench/api's (or core's) schemas: this file declares none, it only says which route
// takes and answers which. Handlers parse their input with these; test/api-contracts.test.ts calls every route
// and checks each answer against them (and that every route file has an entry); openapi.ts makes the OpenAPI
// document from it. Kept free of Next and server modules, so tests and scripts can load it outside Next.
import {
  artifactParams,
  apiErrorBodySchema,
  byNamePageQuery,
  listOrPage,
  newestFirstPageQuery,
  seriesPageQuery,
  seriesPageSchema,
  seriesParams,
  seriesPointsQuery,
  seriesPointsSchema,
  auditEventSchema,
  auditQuery,
  baselineRunsQuery,
  baselineRunsSchema,
  baselineSchema,
  baselinesQuery,
  baselinesSchema,
  ceilingsBody,
  comparisonBody,
  comparisonExportFullQuery,
  comparisonQuery,
  compareDataSchema,
  credentialDeletedSchema,
  definitionDeletedSchema,
  deliveriesQuery,
  deliveryItemSchema,
  exportItemSchema,
  exporterDeletedSchema,
  exporterInput,
  exporterItemSchema,
  exportsQuery,
  exporterUpdate,
  gateTrippedInput,
  gateTrippedSchema,
  smtpAnswerSchema,
  smtpDeletedSchema,
  smtpInput,
  smtpSettingsSchema,
  webhookCreatedSchema,
  webhookDeletedSchema,
  webhookInput,
  webhookItemSchema,
  webhookTestSchema,
  webhookUpdate,
  externalRunCreatedSchema,
  externalRunInput,
  idParams,
  ingestAcceptedSchema,
  limitsBody,
  presetsQuery,
  publicShareParams,
  publicShareSchema,
  retentionSchema,
  runAbortSchema,
  runArtifactsSchema,
  runCreatedSchema,
  runDeletedSchema,
  runListItemSchema,
  runProvenanceSetSchema,
  runsQuery,
  runViewSchema,
  scheduleBody,
  scheduleDeletedSchema,
  scheduleSchema,
  scheduleUpdateBody,
  shareBody,
  shareCreatedSchema,
  shareListItemSchema,
  shareRevokedSchema,
  startRunInput,
  studyAbortSchema,
  studyCreatedSchema,
  studyDeletedSchema,
  studyListItemSchema,
  studyTablesQuery,
  studyPlanQuery,
  studyPlanSchema,
  studyViewSchema,
  targetItemSchema,
  targetVerificationSchema,
  windowQuery,
  windowSummarySchema,
  workloadItemSchema,
  workloadPresetSchema,
  scriptSecretDeletedSchema,
  scriptSecretInput,
  scriptSecretItemSchema,
  scriptSecretSavedSchema,
  workloadRenamedSchema,
  workloadRenameInput,
} from "@opsbench/api";
import {
  credentialInput,
  credentialListItemSchema,
  credentialSettingsInput,
  instanceCeilingsSchema,
  k6ImportUpload,
  runProvenanceSchema,
  studyInput,
  targetInput,
  type WorkspaceRole,
  workloadInput,
  workspaceLimitsSchema,
} from "@opsbench/core";
import { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** An answer that is not JSON: a stream or a file, known by its content type. */
export interface NonJsonBody {
  contentType: string;
}

export interface RouteContract {
  method: HttpMethod;
  /** The path as OpenAPI writes it: /api/v1/runs/{id}. */
  path: string;
  summary: string;
  /**
   * Who may call it: the weakest workspace role that may (checked by apiRoute for a session or an API token),
   * or "public" (no account: a share link's own API). test/authorization-matrix.test.ts is built from this.
   */
  role: WorkspaceRole | "public";
  /** Only the instance admin may call it (InstanceSettings.adminUserId; the local user when sign-in is off): 403 for anyone else. */
  instanceAdmin?: true;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** A body that is not JSON (e.g. k6 output lines), known by its content type. */
  rawBody?: NonJsonBody;
  /** What each status answers: a schema of its JSON body, or the content type of a body that is not JSON. */
  responses: Record<number, z.ZodType | NonJsonBody>;
}

const refused = { 422: apiErrorBodySchema };
const missing = { 404: apiErrorBodySchema };
/** Every route that needs an account: 401 without a session or valid token, 403 for a role too weak. */
const guarded = { 401: apiErrorBodySchema, 403: apiErrorBodySchema };
/** What any mutation may also answer before its handler runs (request-guard.ts): too large, not JSON (403: cross-site). */
const mutation = { ...guarded, 413: apiErrorBodySchema, 415: apiErrorBodySchema };
/** Run and study creation (external runs and imports too): too many a minute, a day, or under way (the workspace's limits). */
const admitted = { 429: apiErrorBodySchema };
/** A workload save checks its script on a worker: at most so many a minute per workspace. */
const checksPerMinute = { 429: apiErrorBodySchema };

const eventStream: NonJsonBody = { contentType: "text/event-stream" };

/** GET of a list: the workspace's items, or a page of them with ?cursor=&limit= (packages/api pages.ts). */
const pagedListRoute = <Q extends z.ZodType>(role: WorkspaceRole, summary: string, item: z.ZodType, query: Q) => ({
  summary: `${summary}; with ?cursor=&limit= a page of them, { items, nextCursor }`,
  role,
  query,
  responses: { 200: listOrPage(item), ...refused, ...guarded },
});
/** GET of a list: the workspace's items. */
const listRoute = (role: WorkspaceRole, summary: string, item: z.ZodType) => ({
  summary,
  role,
  responses: { 200: z.array(item), ...guarded },
});
/** POST that creates an item from its body (201), or refuses the body (422). */
const createRoute = <B extends z.ZodType>(
  role: WorkspaceRole,
  summary: string,
  body: B,
  created: z.ZodType,
  more: Record<number, z.ZodType> = {},
) => ({
  summary,
  role,
  body,
  responses: { 201: created, ...refused, ...mutation, ...more },
});
/** A route about one item, by id: its answer, or 404. */
const itemRoute = (role: WorkspaceRole, summary: string, answer: z.ZodType | NonJsonBody) => ({
  summary,
  role,
  params: idParams,
  responses: { 200: answer, ...missing, ...guarded },
});

/** A mutation of one item, by id (abort, revoke): its answer, or 404. */
const actionRoute = (role: WorkspaceRole, summary: string, answer: z.ZodType) => ({
  summary,
  role,
  params: idParams,
  responses: { 200: answer, ...missing, ...mutation },
});

/** DELETE of one item, by id: gone (200), unknown (404), or refused in its state (409: under way, or still used). */
const deleteRoute = (summary: string, answer: z.ZodType) => ({
  summary,
  role: "editor" as const,
  params: idParams,
  responses: { 200: answer, ...missing, 409: apiErrorBodySchema, ...mutation },
});

/** A contract as written below: its key ("GET /api/v1/runs/{id}") names its method and path. */
type ContractEntry = Omit<RouteContract, "method" | "path">;
type MethodOf<K> = K extends `${infer M extends HttpMethod} ${string}` ? M : never;
type PathOf<K> = K extends `${HttpMethod} ${infer P}` ? P : never;
type WithMethodAndPath<T> = { [K in keyof T]: T[K] & { method: MethodOf<K>; path: PathOf<K> } };

/** Adds to each entry the method and path its key names. */
function withMethodAndPath<T extends Record<string, ContractEntry>>(entries: T): WithMethodAndPath<T> {
  const contracts: Record<string, RouteContract> = {};
  for (const [key, entry] of Object.entries(entries)) {
    const [method, path] = key.split(" ") as [HttpMethod, string];
    contracts[key] = { method, path, ...entry };
  }
  return contracts as WithMethodAndPath<T>;
}

export const API_CONTRACTS = withMethodAndPath({
  "GET /api/v1/targets": pagedListRoute("viewer", "The workspace's targets, by name", targetItemSchema, byNamePageQuery),
  "POST /api/v1/targets": createRoute(
    "editor",
    "Creates a target, or replaces the spec of the target with that name",
    targetInput,
    targetItemSchema,
  ),
  "GET /api/v1/targets/{id}/verification": itemRoute(
    "viewer",
    "The token that proves the workspace owns the target's host (served at /.well-known/opsbench-verify/<token> or as a DNS TXT record opsbench-verify=<token>); null fields when opsbench makes the address itself",
    targetVerificationSchema,
  ),
  "GET /api/v1/workloads": pagedListRoute("viewer", "The workspace's workloads, by name", workloadItemSchema, byNamePageQuery),
  "POST /api/v1/workloads": {
    summary: "Creates a workload, or replaces the one with that name; a k6 script is checked by a worker first",
    role: "editor",
    body: workloadInput,
    responses: { 201: workloadItemSchema, ...refused, ...checksPerMinute, 500: apiErrorBodySchema, ...mutation },
  },
  "GET /api/v1/workloads/presets": {
    summary: "The load-profile presets of the five studies, built at ?timeScale and charted",
    role: "viewer",
    query: presetsQuery,
    responses: { 200: z.array(workloadPresetSchema), ...refused, ...guarded },
  },
  "GET /api/v1/runs": {
    summary:
      "The workspace's latest runs, newest first (the first 50); ?commit= (a prefix of 7+ hex digits), ?branch= and ?label=key=value keep the runs whose provenance matches; with ?cursor=&limit= a page of them, { items, nextCursor }",
    role: "viewer",
    query: runsQuery,
    responses: { 200: listOrPage(runListItemSchema), ...refused, ...guarded },
  },
  "GET /api/v1/series": {
    summary:
      "The workspace's series of runs (a series name, or a target x workload), newest last run first, a page: { items, nextCursor } (?cursor=&limit=)",
    role: "viewer",
    query: seriesPageQuery,
    responses: { 200: seriesPageSchema, ...refused, ...guarded },
  },
  "GET /api/v1/series/{key}/points": {
    summary:
      "A series' finished runs, oldest first, as trend points: provenance, validity and per metric (latency: ?metric=p50|p95|p99, default p95; successful req/s; failure share; cost per 1,000 successful requests) the run's value with its 95% interval, null with a note where none can be had; ?branch= and ?status= keep the runs of that branch and that end (a CI gate's history), ?limit= the newest that many",
    role: "viewer",
    params: seriesParams,
    query: seriesPointsQuery,
    responses: { 200: seriesPointsSchema, ...refused, ...missing, ...guarded },
  },
  "POST /api/v1/runs": createRoute(
    "editor",
    "Creates a run of an existing target and workload (by name) and queues it",
    startRunInput,
    runCreatedSchema,
    admitted,
  ),
  "POST /api/v1/runs/external": createRoute(
    "editor",
    "Creates a run fed by load started elsewhere (`opsbench run --external`): answers its ingest token (once), URL, each generator's opsbench-engine and stock k6 command line and a Kubernetes indexed Job; the run ends, its thresholds judged on the merged result, when every generator has sent its end",
    externalRunInput,
    externalRunCreatedSchema,
    admitted,
  ),
  "GET /api/v1/runs/{id}": itemRoute("viewer", "The run as its page shows it", runViewSchema),
  "POST /api/v1/imports/k6": createRoute(
    "editor",
    "Imports a plain k6 result file as a run: its per-second aggregate as `opsbench import k6` reads it, histograms base64-encoded",
    k6ImportUpload,
    runCreatedSchema,
    admitted,
  ),
  "PUT /api/v1/runs/{id}/provenance": {
    summary:
      "Sets the run's provenance (commit, branch, pull request, build URL, labels), replacing what it had: a field left out is cleared",
    role: "editor",
    params: idParams,
    body: runProvenanceSchema,
    responses: { 200: runProvenanceSetSchema, ...missing, ...refused, ...mutation },
  },
  "POST /api/v1/runs/{id}/abort": actionRoute(
    "editor",
    "Aborts a single run: a queued one at once, one under way within a second (its target is torn down); a final run is left as it is",
    runAbortSchema,
  ),
  "GET /api/v1/runs/{id}/summary": {
    summary: "The summary of a window of the run, merged from its per-second histograms",
    role: "viewer",
    params: idParams,
    query: windowQuery,
    responses: { 200: windowSummarySchema, ...missing, ...refused, ...guarded },
  },
  "GET /api/v1/runs/{id}/events": itemRoute("viewer", "Server-sent events: the worker's notices about the run", eventStream),
  "POST /api/v1/runs/{id}/baseline": {
    summary: "Marks a succeeded run as the workspace's baseline for its target and workload (replacing the one before)",
    role: "editor",
    params: idParams,
    responses: { 200: baselineSchema, ...missing, ...refused, ...mutation },
  },
  "GET /api/v1/runs/{id}/baseline": {
    summary:
      "The last N succeeded runs of the run's series ending at it (its target x workload; an import: the imports of its name), the run first: a gate's baseline side (`opsbench compare --baseline-runs N`)",
    role: "viewer",
    params: idParams,
    query: baselineRunsQuery,
    responses: { 200: baselineRunsSchema, ...missing, ...refused, ...guarded },
  },
  "GET /api/v1/baselines": {
    summary: "The workspace's baselines (one per target and workload), newest first; ?target=&workload= to pick by name",
    role: "viewer",
    query: baselinesQuery,
    responses: { 200: baselinesSchema, ...refused, ...guarded },
  },
  "GET /api/v1/runs/{id}/artifacts": itemRoute(
    "viewer",
    "The files the run's k6 script wrote with handleSummary() (kept within caps): names and sizes",
    runArtifactsSchema,
  ),
  "GET /api/v1/runs/{id}/artifacts/{name}": {
    summary: "One file the run's script wrote with handleSummary(), as it wrote it (the name URL-encoded as one segment)",
    role: "viewer",
    params: artifactParams,
    responses: { 200: { contentType: "application/octet-stream" }, ...missing, ...guarded },
  },
  "POST /api/v1/runs/{id}/ingest": {
    summary:
      "Takes the opsbench k6 output's per-second lines (NDJSON) for a run made by `opsbench run --external`; authorized by the run's own ingest token (Authorization: Bearer), never an account",
    role: "public",
    params: idParams,
    rawBody: { contentType: "application/x-ndjson" },
    responses: { 200: ingestAcceptedSchema, 401: apiErrorBodySchema, 409: apiErrorBodySchema, 413: apiErrorBodySchema, ...refused },
  },
  "GET /api/v1/studies": pagedListRoute(
    "viewer",
    "The workspace's studies, newest first (the first 50)",
    studyListItemSchema,
    newestFirstPageQuery,
  ),
  "POST /api/v1/studies": createRoute(
    "editor",
    "Creates a study (targets x workloads x repetitions) with all its runs, and queues it",
    studyInput,
    studyCreatedSchema,
    { ...admitted, 500: apiErrorBodySchema },
  ),
  "GET /api/v1/studies/plan": {
    summary: "The study planner: the power a study would have for a stated difference, and the repetitions 80% needs",
    role: "viewer",
    query: studyPlanQuery,
    responses: { 200: studyPlanSchema, ...refused, ...guarded },
  },
  "GET /api/v1/studies/{id}": itemRoute("viewer", "The study as its page shows it", studyViewSchema),
  "POST /api/v1/studies/{id}/abort": actionRoute(
    "editor",
    "Aborts a study and its runs not yet started; a finished study is left as it is",
    studyAbortSchema,
  ),
  "GET /api/v1/studies/{id}/tables": {
    summary: "One of the study's tables (IoT Tables 5.x, cost per 1,000 requests, success ratio, throughput) as CSV or JSON",
    role: "viewer",
    params: idParams,
    query: studyTablesQuery,
    responses: { 200: { contentType: "text/csv, application/json" }, ...missing, ...refused, ...guarded },
  },
  "GET /api/v1/studies/{id}/events": itemRoute("viewer", "Server-sent events: the worker's progress notices about the study", eventStream),
  "GET /api/v1/schedules": listRoute(
    "viewer",
    "The workspace's schedules (runs or studies on a cron pattern), by name, each with its next five ticks and its latest ticks' outcomes",
    scheduleSchema,
  ),
  "POST /api/v1/schedules": createRoute(
    "editor",
    "Saves a schedule: a run of a target x workload, or a study of a saved study's definition, on a five-field cron pattern in an IANA time zone; 409 for a name in use",
    scheduleBody,
    scheduleSchema,
    { 409: apiErrorBodySchema },
  ),
  "GET /api/v1/schedules/{id}": itemRoute("viewer", "A schedule with its next five ticks and its latest ticks' outcomes", scheduleSchema),
  "PUT /api/v1/schedules/{id}": {
    summary: "Replaces a schedule's name, what it starts, its cron pattern and time zone (paused stays as it is)",
    role: "editor",
    params: idParams,
    body: scheduleUpdateBody,
    responses: { 200: scheduleSchema, ...missing, ...refused, 409: apiErrorBodySchema, ...mutation },
  },
  "DELETE /api/v1/schedules/{id}": actionRoute(
    "editor",
    "Deletes a schedule and the record of its ticks; the runs and studies it started stay",
    scheduleDeletedSchema,
  ),
  "POST /api/v1/schedules/{id}/pause": actionRoute(
    "editor",
    "Pauses a schedule: no tick starts anything until it is resumed",
    scheduleSchema,
  ),
  "POST /api/v1/schedules/{id}/resume": actionRoute(
    "editor",
    "Resumes a paused schedule: its next tick is the pattern's next time from now (ticks missed while paused are not made up)",
    scheduleSchema,
  ),
  "GET /api/v1/comparisons": {
    summary: "Runs or study cells side by side, the selection in the query",
    role: "viewer",
    query: comparisonQuery,
    responses: { 200: compareDataSchema, ...refused, ...guarded },
  },
  "POST /api/v1/comparisons": {
    summary: "Runs or study cells side by side",
    role: "viewer",
    body: comparisonBody,
    responses: { 200: compareDataSchema, ...refused, ...mutation },
  },
  "GET /api/v1/comparisons/export": {
    summary: "One table or series of a comparison as a CSV or JSON file",
    role: "viewer",
    query: comparisonExportFullQuery,
    responses: { 200: { contentType: "text/csv, application/json" }, ...refused, ...guarded },
  },
  "GET /api/v1/shares": listRoute("owner", "The workspace's share links, newest first (never their tokens)", shareListItemSchema),
  "POST /api/v1/shares": createRoute(
    "owner",
    "Creates a read-only share link to a run, a study or a comparison",
    shareBody,
    shareCreatedSchema,
  ),
  "DELETE /api/v1/shares/{id}": actionRoute("owner", "Revokes a share link", shareRevokedSchema),
  "GET /api/v1/public/shares/{token}": {
    summary: "Public: what a share link shows; no workspace, the token alone decides",
    role: "public",
    params: publicShareParams,
    responses: { 200: publicShareSchema, ...missing },
  },
  "GET /api/v1/limits": {
    summary:
      "What the workspace may ask of the machine: each limit the lower of the workspace's own and the instance's ceiling (a new install's defaults until set)",
    role: "viewer",
    responses: { 200: workspaceLimitsSchema, ...guarded },
  },
  "PUT /api/v1/limits": {
    summary:
      "Sets some of the workspace's limits; the others keep their value. A limit above the instance's ceiling is refused (422 naming it)",
    role: "owner",
    body: limitsBody,
    responses: { 200: workspaceLimitsSchema, ...refused, ...mutation },
  },
  "GET /api/v1/instance/ceilings": {
    summary: "The instance admin's ceilings: no workspace's limits go above them (a new install's defaults until set)",
    role: "viewer",
    responses: { 200: instanceCeilingsSchema, ...guarded },
  },
  "PUT /api/v1/instance/ceilings": {
    summary:
      "Instance admin only: sets some ceilings, the others keep their value; a lowered ceiling binds every workspace at once, whatever its own limits",
    role: "viewer",
    instanceAdmin: true,
    body: ceilingsBody,
    responses: { 200: instanceCeilingsSchema, ...refused, ...mutation },
  },
  "GET /api/v1/credentials": listRoute(
    "owner",
    "The workspace's credentials for real platforms (names, kinds, dates; never a secret)",
    credentialListItemSchema,
  ),
  "POST /api/v1/credentials": createRoute(
    "owner",
    "Saves a credential (aws, gcp or kubernetes), write-only, after a worker has checked it against its platform",
    credentialInput,
    credentialListItemSchema,
    { 500: apiErrorBodySchema },
  ),
  "DELETE /api/v1/credentials/{id}": actionRoute("owner", "Deletes a credential", credentialDeletedSchema),
  "PUT /api/v1/credentials/{id}": {
    summary:
      "Sets whether editors may deploy with a credential (owners always may); an editor's target, run or study naming a credential closed to editors is refused (403)",
    role: "owner",
    params: idParams,
    body: credentialSettingsInput,
    responses: { 200: credentialListItemSchema, ...missing, ...refused, ...mutation },
  },
  "GET /api/v1/webhooks": listRoute(
    "owner",
    "The workspace's webhook endpoints (URL, events, format, enabled; never the signing secret)",
    webhookItemSchema,
  ),
  "POST /api/v1/webhooks": createRoute(
    "owner",
    "Adds a webhook endpoint; its URL passes the load targets' egress rule (no private, loopback or metadata address, no port of opsbench's own services, unless the admin allows the host). The answer carries the signing secret, once",
    webhookInput,
    webhookCreatedSchema,
    { 500: apiErrorBodySchema },
  ),
  "PUT /api/v1/webhooks/{id}": {
    summary: "Changes a webhook endpoint's URL (checked as at creation), events, format or whether it is enabled; the secret stays",
    role: "owner",
    params: idParams,
    body: webhookUpdate,
    responses: { 200: webhookItemSchema, ...missing, ...refused, ...mutation },
  },
  "DELETE /api/v1/webhooks/{id}": actionRoute("owner", "Deletes a webhook endpoint and its delivery log", webhookDeletedSchema),
  "POST /api/v1/webhooks/{id}/test": {
    summary: "Queues a test event to this endpoint alone; its outcome appears in the delivery log",
    role: "owner",
    params: idParams,
    responses: { 201: webhookTestSchema, ...missing, ...mutation },
  },
  "GET /api/v1/webhooks/deliveries": {
    summary: "The notification delivery log (webhooks and e-mail), newest first, each attempt's code and error; ?endpoint= one endpoint's",
    role: "owner",
    query: deliveriesQuery,
    responses: { 200: z.array(deliveryItemSchema), ...missing, ...refused, ...guarded },
  },
  "GET /api/v1/notifications/smtp": {
    summary: "The workspace's SMTP settings for e-mail notifications (never the password), or null when it sends no e-mail",
    role: "owner",
    responses: { 200: smtpAnswerSchema, ...guarded },
  },
  "PUT /api/v1/notifications/smtp": {
    summary:
      "Sets the workspace's SMTP server, recipients and events; the host passes the load targets' egress rule; a password left out keeps the stored one",
    role: "owner",
    body: smtpInput,
    responses: { 200: smtpSettingsSchema, ...refused, 500: apiErrorBodySchema, ...mutation },
  },
  "DELETE /api/v1/notifications/smtp": {
    summary: "Forgets the workspace's SMTP settings: it sends no e-mail",
    role: "owner",
    responses: { 200: smtpDeletedSchema, ...mutation },
  },
  "GET /api/v1/exporters": listRoute(
    "owner",
    "The workspace's results exporters (Prometheus remote write, OTLP over HTTP): where each finished run's per-second series go; never a token or password",
    exporterItemSchema,
  ),
  "POST /api/v1/exporters": createRoute(
    "owner",
    "Adds a results exporter; its URL passes the webhooks' egress rule (no private, loopback or metadata address, no port of opsbench's own services, unless the admin allows the host). A token or password is stored sealed, never answered",
    exporterInput,
    exporterItemSchema,
    { 500: apiErrorBodySchema },
  ),
  "PUT /api/v1/exporters/{id}": {
    summary: "Changes an exporter's name, kind, URL (checked as at creation), credential or whether it is enabled; a secret left out stays",
    role: "owner",
    params: idParams,
    body: exporterUpdate,
    responses: { 200: exporterItemSchema, ...missing, ...refused, 500: apiErrorBodySchema, ...mutation },
  },
  "DELETE /api/v1/exporters/{id}": actionRoute("owner", "Deletes a results exporter and its log", exporterDeletedSchema),
  "GET /api/v1/exporters/exports": {
    summary:
      "The results export log, newest first: each run sent to each exporter, every attempt's code and error; ?exporter= one exporter's",
    role: "owner",
    query: exportsQuery,
    responses: { 200: z.array(exportItemSchema), ...missing, ...refused, ...guarded },
  },
  "POST /api/v1/runs/{id}/gate-tripped": {
    summary:
      "Reports that a regression gate failed on the run (`opsbench compare` / `run --fail-on` send it): the workspace's webhooks and e-mail subscribed to gate.tripped are told",
    role: "editor",
    params: idParams,
    body: gateTrippedInput,
    responses: { 201: gateTrippedSchema, ...missing, ...refused, ...mutation },
  },
  "GET /api/v1/audit": {
    summary: "The workspace's audit log, newest first: who created, started, aborted, shared and revoked what",
    role: "viewer",
    query: auditQuery,
    responses: { 200: z.array(auditEventSchema), ...refused, ...guarded },
  },
  "DELETE /api/v1/runs/{id}": deleteRoute(
    "Deletes a run with its series, steps, events and share links; one queued or under way is aborted first (409 if it does not stop within 30 s)",
    runDeletedSchema,
  ),
  "DELETE /api/v1/studies/{id}": deleteRoute(
    "Deletes a study with its runs (and theirs) and share links; one under way is aborted first (409 if it does not stop within 30 s)",
    studyDeletedSchema,
  ),
  "DELETE /api/v1/targets/{id}": deleteRoute(
    "Deletes a target (by id or name); refused (409) while runs use it: delete those runs or studies first",
    definitionDeletedSchema,
  ),
  "DELETE /api/v1/workloads/{id}": deleteRoute(
    "Deletes a workload (by id or name); refused (409) while runs use it: delete those runs or studies first",
    definitionDeletedSchema,
  ),
  "PUT /api/v1/workloads/{id}": {
    summary:
      "Renames a workload (by id or name); its runs, baselines, baseline history and target x workload series follow it. 409 when the name is taken",
    role: "editor",
    params: idParams,
    body: workloadRenameInput,
    responses: { 200: workloadRenamedSchema, ...missing, 409: apiErrorBodySchema, ...refused, ...mutation },
  },
  "GET /api/v1/secrets": listRoute(
    "editor",
    "The workspace's script secrets (given to a run's script as __ENV.NAME with --secret NAME): names and dates, never a value",
    scriptSecretItemSchema,
  ),
  "POST /api/v1/secrets": createRoute(
    "owner",
    "Saves a script secret, or replaces the value of the one with that name; the value is sealed and never answered back",
    scriptSecretInput,
    scriptSecretSavedSchema,
    { 500: apiErrorBodySchema },
  ),
  "DELETE /api/v1/secrets/{id}": actionRoute("owner", "Deletes a script secret (by id or name)", scriptSecretDeletedSchema),
  "GET /api/v1/retention": {
    summary: "How long finished runs keep their raw per-second series (null: forever); the summary is always kept",
    role: "viewer",
    responses: { 200: retentionSchema, ...guarded },
  },
  "PUT /api/v1/retention": {
    summary: "Sets how many days finished runs keep their raw per-second series (null: forever)",
    role: "owner",
    body: retentionSchema,
    responses: { 200: retentionSchema, ...refused, ...mutation },
  },
  "GET /api/v1/openapi.json": {
    summary: "This API as an OpenAPI 3.1 document, made from these contracts",
    role: "public",
    responses: { 200: { contentType: "application/json" } },
  },
});

export type RouteKey = keyof typeof API_CONTRACTS;
