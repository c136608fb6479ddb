// POST /api/v1/runs/external: `opsbench run --external` with an API token. Creates a run that load engines started
// elsewhere feed through POST /api/v1/runs/{id}/ingest, and answers what they need (the ingest URL, the run's ingest
// token once, each generator's opsbench-engine command line and stock k6 one, a Kubernetes indexed Job). The run ends, its thresholds judged on the
// merged result of all generators, when every generator has sent its end (packages/db k6-ingest/external-runs.ts).
import { NotFoundError } from "@opsbench/db";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody } from "@/lib/api/errors";
import { env } from "@/lib/env";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = apiRoute(async ({ request, scope }) => {
  const { workload, ingestBaseUrl, ...input } = await parseBody(API_CONTRACTS["POST /api/v1/runs/external"].body, request);
  const baseUrl = ingestBaseUrl ?? env.OPSBENCH_PUBLIC_URL ?? new URL(request.url).origin;
  const created = await scope.runs.createExternal({ ...input, workloadName: workload, baseUrl }).catch((err: unknown) => {
    // A workload that does not exist is bad input, not a missing resource at this URL.
    if (err instanceof NotFoundError)
      throw new ApiError("invalid_input", `workload "${err.key}" does not exist`, [
        { path: "workload", message: `no workload named "${err.key}"` },
      ]);
    throw err;
  });
  await audit(scope, request, {
    action: "run.external",
    subjectKind: "run",
    subjectId: created.id,
    detail: { name: input.name ?? null, workload: workload ?? null, generators: input.generators },
  });
  return NextResponse.json(created, { status: 201 });
});
