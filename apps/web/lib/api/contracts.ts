// Every /api/v1 route's contract: its input (path params, query, body) and, per status, the schema of what it
// answers. Handlers parse their input with these; test/api-contracts.test.ts calls every route and checks
// each answer against them (and that every route file has an entry); an OpenAPI document can be made from it.
// Kept free of Next and server modules (schemas only), so tests and scripts can load it outside Next.
import { studyInput, targetInput, type WorkspaceRole, workloadInput } from "@opsbench/core";
import { z } from "zod";
import { COMPARISON_TABLES } from "@/lib/export/comparison-tables";
import { presetsQuery, targetItemSchema, workloadItemSchema, workloadPresetSchema } from "./contracts/catalog";
import { comparisonBody, comparisonQuery, compareDataSchema, publicShareSchema } from "./contracts/comparisons";
import { apiErrorBodySchema } from "./contracts/error-body";
import { runCreatedSchema, runListItemSchema, runViewSchema, startRunInput, windowQuery, windowSummarySchema } from "./contracts/runs";
import { shareBody, shareCreatedSchema, shareListItemSchema, shareRevokedSchema } from "./contracts/shares";
import { studyAbortSchema, studyCreatedSchema, studyListItemSchema, studyViewSchema } from "./contracts/studies";

export type HttpMethod = "GET" | "POST" | "DELETE";

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
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** What each status answers: a schema of its JSON body, or the content type of a body that is not JSON. */
  responses: Record<number, z.ZodType | NonJsonBody>;
}

const idParams = z.object({ id: z.string() });
const refused = { 422: apiErrorBodySchema };
const missing = { 404: apiErrorBodySchema };
/** Every route that needs an account: 401 without a session or valid token, 403 for a role too weak. */
const guarded = { 401: apiErrorBodySchema, 403: apiErrorBodySchema };
/** The export query's own part (format, table). */
export const comparisonExportQuery = z.object({ format: z.enum(["csv", "json"]).default("csv"), table: z.enum(COMPARISON_TABLES) });

export const API_CONTRACTS = {
  "GET /api/v1/targets": {
    method: "GET",
    path: "/api/v1/targets",
    summary: "The workspace's targets, by name",
    role: "viewer",
    responses: { 200: z.array(targetItemSchema), ...guarded },
  },
  "POST /api/v1/targets": {
    method: "POST",
    path: "/api/v1/targets",
    summary: "Creates a target, or replaces the spec of the target with that name",
    role: "editor",
    body: targetInput,
    responses: { 201: targetItemSchema, ...refused, ...guarded },
  },
  "GET /api/v1/workloads": {
    method: "GET",
    path: "/api/v1/workloads",
    summary: "The workspace's workloads, by name",
    role: "viewer",
    responses: { 200: z.array(workloadItemSchema), ...guarded },
  },
  "POST /api/v1/workloads": {
    method: "POST",
    path: "/api/v1/workloads",
    summary: "Creates a workload, or replaces the one with that name; a k6 script is checked by a worker first",
    role: "editor",
    body: workloadInput,
    responses: { 201: workloadItemSchema, ...refused, 500: apiErrorBodySchema, ...guarded },
  },
  "GET /api/v1/workloads/presets": {
    method: "GET",
    path: "/api/v1/workloads/presets",
    summary: "The load-profile presets of the five studies, built at ?timeScale and charted",
    role: "viewer",
    query: presetsQuery,
    responses: { 200: z.array(workloadPresetSchema), ...refused, ...guarded },
  },
  "GET /api/v1/runs": {
    method: "GET",
    path: "/api/v1/runs",
    summary: "The workspace's latest runs, newest first",
    role: "viewer",
    responses: { 200: z.array(runListItemSchema), ...guarded },
  },
  "POST /api/v1/runs": {
    method: "POST",
    path: "/api/v1/runs",
    summary: "Creates a run of an existing target and workload (by name) and queues it",
    role: "editor",
    body: startRunInput,
    responses: { 201: runCreatedSchema, ...refused, ...guarded },
  },
  "GET /api/v1/runs/{id}": {
    method: "GET",
    path: "/api/v1/runs/{id}",
    summary: "The run as its page shows it",
    role: "viewer",
    params: idParams,
    responses: { 200: runViewSchema, ...missing, ...guarded },
  },
  "GET /api/v1/runs/{id}/summary": {
    method: "GET",
    path: "/api/v1/runs/{id}/summary",
    summary: "The summary of a window of the run, merged from its per-second histograms",
    role: "viewer",
    params: idParams,
    query: windowQuery,
    responses: { 200: windowSummarySchema, ...missing, ...refused, ...guarded },
  },
  "GET /api/v1/runs/{id}/events": {
    method: "GET",
    path: "/api/v1/runs/{id}/events",
    summary: "Server-sent events: the worker's notices about the run",
    role: "viewer",
    params: idParams,
    responses: { 200: { contentType: "text/event-stream" }, ...missing, ...guarded },
  },
  "GET /api/v1/studies": {
    method: "GET",
    path: "/api/v1/studies",
    summary: "The workspace's studies, newest first",
    role: "viewer",
    responses: { 200: z.array(studyListItemSchema), ...guarded },
  },
  "POST /api/v1/studies": {
    method: "POST",
    path: "/api/v1/studies",
    summary: "Creates a study (targets x workloads x repetitions) with all its runs, and queues it",
    role: "editor",
    body: studyInput,
    responses: { 201: studyCreatedSchema, ...refused, ...guarded },
  },
  "GET /api/v1/studies/{id}": {
    method: "GET",
    path: "/api/v1/studies/{id}",
    summary: "The study as its page shows it",
    role: "viewer",
    params: idParams,
    responses: { 200: studyViewSchema, ...missing, ...guarded },
  },
  "POST /api/v1/studies/{id}/abort": {
    method: "POST",
    path: "/api/v1/studies/{id}/abort",
    summary: "Aborts a study and its runs not yet started; a finished study is left as it is",
    role: "editor",
    params: idParams,
    responses: { 200: studyAbortSchema, ...missing, ...guarded },
  },
  "GET /api/v1/studies/{id}/events": {
    method: "GET",
    path: "/api/v1/studies/{id}/events",
    summary: "Server-sent events: the worker's progress notices about the study",
    role: "viewer",
    params: idParams,
    responses: { 200: { contentType: "text/event-stream" }, ...missing, ...guarded },
  },
  "GET /api/v1/comparisons": {
    method: "GET",
    path: "/api/v1/comparisons",
    summary: "Runs or study cells side by side, the selection in the query",
    role: "viewer",
    query: comparisonQuery,
    responses: { 200: compareDataSchema, ...refused, ...guarded },
  },
  "POST /api/v1/comparisons": {
    method: "POST",
    path: "/api/v1/comparisons",
    summary: "Runs or study cells side by side",
    role: "viewer",
    body: comparisonBody,
    responses: { 200: compareDataSchema, ...refused, ...guarded },
  },
  "GET /api/v1/comparisons/export": {
    method: "GET",
    path: "/api/v1/comparisons/export",
    summary: "One table or series of a comparison as a CSV or JSON file",
    role: "viewer",
    query: comparisonQuery.extend(comparisonExportQuery.shape),
    responses: { 200: { contentType: "text/csv, application/json" }, ...refused, ...guarded },
  },
  "GET /api/v1/shares": {
    method: "GET",
    path: "/api/v1/shares",
    summary: "The workspace's share links, newest first (never their tokens)",
    role: "owner",
    responses: { 200: z.array(shareListItemSchema), ...guarded },
  },
  "POST /api/v1/shares": {
    method: "POST",
    path: "/api/v1/shares",
    summary: "Creates a read-only share link to a run, a study or a comparison",
    role: "owner",
    body: shareBody,
    responses: { 201: shareCreatedSchema, ...refused, ...guarded },
  },
  "DELETE /api/v1/shares/{id}": {
    method: "DELETE",
    path: "/api/v1/shares/{id}",
    summary: "Revokes a share link",
    role: "owner",
    params: idParams,
    responses: { 200: shareRevokedSchema, ...missing, ...guarded },
  },
  "GET /api/v1/public/shares/{token}": {
    method: "GET",
    path: "/api/v1/public/shares/{token}",
    summary: "Public: what a share link shows; no workspace, the token alone decides",
    role: "public",
    params: z.object({ token: z.string() }),
    responses: { 200: publicShareSchema, ...missing },
  },
} as const satisfies Record<string, RouteContract>;

export type RouteKey = keyof typeof API_CONTRACTS;
