// One error type for the API, a closed code -> HTTP status map, and the wrapper
// every route handler goes through: contract -> member and role (auth) -> handler -> errors as JSON.
import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError, type WorkspaceScope } from "@opsbench/db";
import { httpRequestSeconds, httpRequests } from "@opsbench/jobs";
import { z } from "zod";
import { authorize } from "@/lib/auth/authorize";
import { log } from "@/lib/log";
import type { SignedInMember } from "@/lib/server/workspace";
import { ApiError } from "./api-error";
import { contractForRequest } from "./contract-for-request";
import type { ApiIssue } from "@opsbench/api";
import { env } from "@/lib/env";
import { assertSafeMutation, bodyLimitFor, readCappedText } from "./request-guard";

/** This request's body limit: larger for the routes that save a script's files (the instance's cap). */
const bodyLimitOf = (request: Request) => bodyLimitFor(new URL(request.url).pathname, env.OPSBENCH_MAX_SCRIPT_FILES_BYTES);

export { ApiError } from "./api-error";
export { type ApiErrorBody, type ApiIssue, ERROR_STATUS, type ErrorCode } from "@opsbench/api";

export const dottedPath = (path: ReadonlyArray<PropertyKey>) => path.map((p) => String(p)).join(".");

/** ZodError -> 422 with one issue per problem; unrecognized keys get one issue per key. */
export function fromZodError(err: z.core.$ZodError, prefix: ReadonlyArray<PropertyKey> = []): ApiError {
  const issues: ApiIssue[] = [];
  for (const i of err.issues) {
    if (i.code === "unrecognized_keys") {
      for (const key of i.keys) issues.push({ path: dottedPath([...prefix, ...i.path, key]), message: "unrecognized key" });
    } else {
      issues.push({ path: dottedPath([...prefix, ...i.path]), message: i.message });
    }
  }
  const message = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  return new ApiError("invalid_input", message || "invalid input", issues);
}

const isZodError = (err: unknown): err is z.core.$ZodError =>
  err instanceof z.core.$ZodError ||
  (typeof err === "object" && err !== null && (err as Error).name === "ZodError" && Array.isArray((err as z.core.$ZodError).issues));

const isNotFound = (err: unknown): err is NotFoundError =>
  err instanceof NotFoundError || (err instanceof Error && "entity" in err && err.message.endsWith("not found"));

/** Any thrown value -> the response the client sees. Unexpected errors are logged (with the request id), never leaked. */
export function toErrorResponse(err: unknown, where: string, requestId?: string): Response {
  if (err instanceof ApiError) return err.toResponse();
  if (isZodError(err)) return fromZodError(err).toResponse();
  if (isNotFound(err)) return new ApiError("not_found", err.message).toResponse();
  if (err instanceof ConflictError) return new ApiError("conflict", err.message).toResponse();
  log.error({ requestId, route: where, err }, "unexpected API error");
  return new ApiError("internal", "internal error").toResponse();
}

/** The caller's X-Request-Id when it is a sane token (a proxy's), else a new one; it ties a response to its log lines. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** The path of the first key or string in a JSON value that holds a NUL character, or null when none does. */
function nulPath(value: unknown, at: PropertyKey[] = []): PropertyKey[] | null {
  if (typeof value === "string") return value.includes("\0") ? at : null;
  if (typeof value !== "object" || value === null) return null;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes("\0")) return [...at, key];
    const found = nulPath(inner, [...at, Array.isArray(value) ? Number(key) : key]);
    if (found) return found;
  }
  return null;
}

/**
 * The request body as JSON; a missing or malformed body is a 422, not a 500; one too large a 413. A NUL character
 * anywhere in it is a 422 too, for every route at once: Postgres keeps none in text or jsonb, so it would fail the write.
 */
export async function readJson(request: Request): Promise<unknown> {
  const text = await readCappedText(request, bodyLimitOf(request));
  if (text.trim() === "")
    throw new ApiError("invalid_input", "request body is empty; expected JSON", [{ path: "body", message: "expected a JSON body" }]);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    const detail = (err as Error).message;
    throw new ApiError("invalid_input", `request body is not valid JSON: ${detail}`, [
      { path: "body", message: `not valid JSON: ${detail}` },
    ]);
  }
  const nul = nulPath(body);
  if (nul) {
    const where = dottedPath(nul) || "body";
    throw new ApiError("invalid_input", `${where}: cannot contain a NUL character`, [
      { path: where, message: "cannot contain a NUL character" },
    ]);
  }
  return body;
}

/** Parses with a zod schema, turning failure into a 422 ApiError. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw fromZodError(r.error);
  return r.data;
}

/** The request's JSON body parsed with a route contract's body schema (422 when it does not fit). */
export async function parseBody<S extends z.ZodType>(schema: S, request: Request): Promise<z.output<S>> {
  return parseInput(schema, await readJson(request));
}

/** The request's query parameters (one value each) parsed with a route contract's query schema. */
export function parseQuery<S extends z.ZodType>(schema: S, request: Request): z.output<S> {
  return parseInput(schema, Object.fromEntries(new URL(request.url).searchParams));
}

/**
 * Counts an answered API request under its route's pattern (/api/v1/runs/{id}: one series per route, not per id);
 * a path no contract names counts as "other", so a scanner's made-up paths cannot grow the series without bound.
 */
export function recordRequest(method: string, pathname: string, status: number, seconds: number): void {
  const route = contractForRequest(method, pathname)?.path ?? "other";
  httpRequests.inc({ route, method, status: String(status) });
  httpRequestSeconds.observe({ route, method }, seconds);
}

export interface ApiContext<P> {
  request: Request;
  /** The calling member's workspace: every read and write goes through it. */
  scope: WorkspaceScope;
  member: SignedInMember;
  params: P;
}

/** The member a request acts as, if their role is at least what the route's contract requires. */
async function authorizeByContract(request: Request, pathname: string): Promise<SignedInMember> {
  const contract = contractForRequest(request.method, pathname);
  if (!contract || contract.role === "public") throw new Error(`no contract with a workspace role for ${request.method} ${pathname}`);
  const auth = await authorize(request, contract.role);
  if (!auth.ok) throw new ApiError(auth.code, auth.message);
  if (contract.instanceAdmin && !auth.member.instanceAdmin) throw new ApiError("forbidden", "this needs the instance admin");
  return auth.member;
}

/**
 * Wraps a route handler: refuses cross-site and non-JSON mutations (request-guard.ts), finds the route's
 * contract, checks the caller's session or API token against the role it requires (the single place where
 * authentication and roles are checked), runs the handler in the caller's workspace, and maps every thrown
 * error to JSON.
 */
export function apiRoute<P extends Record<string, string | string[]> = Record<string, never>>(
  fn: (ctx: ApiContext<P>) => Promise<Response>,
) {
  return async (request: Request, routeCtx: { params: Promise<P> }): Promise<Response> => {
    const { pathname } = new URL(request.url);
    const where = `${request.method} ${pathname}`;
    const requestId = requestIdOf(request);
    const started = performance.now();
    let response: Response;
    try {
      assertSafeMutation(request, bodyLimitOf(request));
      const member = await authorizeByContract(request, pathname);
      const params = ((await routeCtx?.params) ?? {}) as P;
      response = await fn({ request, scope: member.scope, member, params });
    } catch (err) {
      response = toErrorResponse(err, where, requestId);
    }
    recordRequest(request.method, pathname, response.status, (performance.now() - started) / 1000);
    try {
      response.headers.set("x-request-id", requestId);
    } catch {
      /* a response with immutable headers (a redirect) goes out without it */
    }
    return response;
  };
}
