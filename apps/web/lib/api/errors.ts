// One error type for the API, a closed code -> HTTP status map, and the wrapper
// every route handler goes through: workspace (auth) -> handler -> errors as JSON.
import { NotFoundError, type WorkspaceScope } from "@opsbench/db";
import { NextResponse } from "next/server";
import { z } from "zod";
import { resolveWorkspace } from "@/lib/server/workspace";
import { type ApiErrorBody, type ApiIssue, ERROR_STATUS, type ErrorCode } from "./contracts/error-body";

export { type ApiErrorBody, type ApiIssue, ERROR_STATUS, type ErrorCode } from "./contracts/error-body";

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: ApiIssue[],
  ) {
    super(message);
    this.name = "ApiError";
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  toResponse() {
    const body: ApiErrorBody = { error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) } };
    return NextResponse.json(body, { status: this.status });
  }
}

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

/** Any thrown value -> the response the client sees. Unexpected errors are logged, never leaked. */
export function toErrorResponse(err: unknown, where: string): Response {
  if (err instanceof ApiError) return err.toResponse();
  if (isZodError(err)) return fromZodError(err).toResponse();
  if (isNotFound(err)) return new ApiError("not_found", err.message).toResponse();
  console.error(`${where}: unexpected error`, err);
  return new ApiError("internal", "internal error").toResponse();
}

/** The request body as JSON; a missing or malformed body is a 422, not a 500. */
export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "")
    throw new ApiError("invalid_input", "request body is empty; expected JSON", [{ path: "body", message: "expected a JSON body" }]);
  try {
    return JSON.parse(text);
  } catch (err) {
    const detail = (err as Error).message;
    throw new ApiError("invalid_input", `request body is not valid JSON: ${detail}`, [
      { path: "body", message: `not valid JSON: ${detail}` },
    ]);
  }
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

export interface ApiContext<P> {
  request: Request;
  scope: WorkspaceScope;
  params: P;
}

/**
 * Wraps a route handler: resolves the workspace (the single place where auth
 * will go), runs the handler, and maps every thrown error to JSON.
 */
export function apiRoute<P extends Record<string, string | string[]> = Record<string, never>>(
  fn: (ctx: ApiContext<P>) => Promise<Response>,
) {
  return async (request: Request, routeCtx: { params: Promise<P> }): Promise<Response> => {
    const where = `${request.method} ${new URL(request.url).pathname}`;
    try {
      const scope = await resolveWorkspace(request);
      const params = ((await routeCtx?.params) ?? {}) as P;
      return await fn({ request, scope, params });
    } catch (err) {
      return toErrorResponse(err, where);
    }
  };
}
