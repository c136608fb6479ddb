// The opsbench k6 output's lines over HTTP (`--out opsbench=https://.../api/v1/runs/<id>/ingest`), for a run
// made by `opsbench run --external`. No account: the run's own ingest token (Authorization: Bearer) alone
// decides, and a wrong, expired or other run's token is a 401 that writes nothing (packages/db external-runs).
import { IngestRefused, ingestRunLines } from "@opsbench/db";
import { NextResponse } from "next/server";
import { ApiError, toErrorResponse } from "@/lib/api/errors";
import { readCappedText } from "@/lib/api/request-guard";
import { getDb } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const CODES = { 401: "unauthorized", 409: "conflict", 422: "invalid_input" } as const;

export async function POST(request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const { id } = await ctx.params;
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? null;
    const body = await readCappedText(request);
    const accepted = await ingestRunLines(getDb(), id, token, request.headers.get("x-opsbench-segment"), body);
    return NextResponse.json(accepted);
  } catch (err) {
    const refused = err instanceof IngestRefused ? new ApiError(CODES[err.status], err.message) : err;
    return toErrorResponse(refused, `POST ${new URL(request.url).pathname.replace(/[^/]+\/ingest$/, ":id/ingest")}`);
  }
}
