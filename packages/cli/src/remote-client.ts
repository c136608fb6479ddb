// The CLI against a running opsbench server (OPSBENCH_URL + OPSBENCH_TOKEN): the same commands through the
// REST API, with the same output and exit codes as against the database.
import { runSummarySchema } from "@opsbench/core";
import { z } from "zod";
import type { RunReport } from "./wait-for-run";

export interface Remote {
  url: string;
  token: string;
}

/** The server refused the input (422) or knows no such thing (404): the caller's mistake, exit 2. */
export class RemoteInputError extends Error {}

const errorBody = z.object({ error: z.object({ message: z.string() }) });

const runReportSchema = z.object({
  id: z.string(),
  status: z.string(),
  error: z.string().nullable(),
  k6ExitCode: z.number().nullable(),
  summary: runSummarySchema.nullable(),
  steps: z.array(z.object({ name: z.string(), status: z.string(), durationMs: z.number().nullable(), error: z.string().nullable() })),
});

async function call(remote: Remote, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${remote.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${remote.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer: unknown = await res.json().catch(() => null);
  if (res.ok) return answer;
  const message = errorBody.safeParse(answer).data?.error.message ?? `HTTP ${res.status}`;
  if (res.status === 401) throw new Error(`${remote.url} refused the token (401): ${message}`);
  if (res.status === 403) throw new Error(`${remote.url} refused (403): ${message}`);
  if (res.status === 404 || res.status === 422) throw new RemoteInputError(message);
  throw new Error(`${method} ${path} answered ${res.status}: ${message}`);
}

export async function remoteRunReport(remote: Remote, id: string): Promise<RunReport> {
  return runReportSchema.parse(await call(remote, "GET", `/api/v1/runs/${encodeURIComponent(id)}`));
}

/** Creates a run of the named target and workload on the server; its id. */
export async function remoteStartRun(remote: Remote, target: string, workload: string): Promise<string> {
  const created = z.object({ id: z.string() }).parse(await call(remote, "POST", "/api/v1/runs", { target, workload }));
  return created.id;
}
