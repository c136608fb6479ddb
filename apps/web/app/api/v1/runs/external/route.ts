// POST /api/v1/runs/external: `opsbench run --external` with an API token. Creates a run that load engines started
// elsewhere feed through POST /api/v1/runs/{id}/ingest, and answers what they need (the ingest URL, the run's ingest
// token once, each generator's opsbench-engine command line and stock k6 one, a Kubernetes indexed Job). The run ends, its thresholds judged on the
// merged result of all generators, when every generator has sent its end (packages/db k6-ingest/external-runs.ts).
import { externalRunBreaches, workloadSpec } from "@opsbench/core";
import { NotFoundError } from "@opsbench/db";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody } from "@/lib/api/errors";
import { env } from "@/lib/env";
import { audit } from "@/lib/server/audit";
import { admitNewWork } from "@/lib/server/run-admission";
import { assertWorkloadFits } from "@/lib/server/script-check";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A workload that does not exist is bad input, not a missing resource at this URL. */
function unknownWorkload(err: unknown): never {
  if (err instanceof NotFoundError)
    throw new ApiError("invalid_input", `workload "${err.key}" does not exist`, [
      { path: "workload", message: `no workload named "${err.key}"` },
    ]);
  throw err;
}

export const POST = apiRoute(async ({ request, scope }) => {
  const { workload, ingestBaseUrl, ...input } = await parseBody(API_CONTRACTS["POST /api/v1/runs/external"].body, request);
  const baseUrl = ingestBaseUrl ?? env.OPSBENCH_PUBLIC_URL ?? new URL(request.url).origin;
  // Load made elsewhere is still this workspace's load: the limits of a run of its own, checked before anything is made.
  const limits = await scope.limits.get();
  const saved = workload ? await scope.workloads.byName(workload).catch(unknownWorkload) : null;
  const planned = saved ? await assertWorkloadFits(workloadSpec.parse(saved.spec), limits, "workload", scope.workspaceId) : null;
  const { breaches, validHours } = externalRunBreaches(input, limits, planned?.totalDurationSeconds ?? null);
  if (breaches.length)
    throw new ApiError(
      "invalid_input",
      breaches.map((b) => `${b.path}: ${b.message}`).join("; "),
      breaches.map((b) => ({ path: b.path, message: b.message })),
    );
  await admitNewWork(scope, limits);
  const created = await scope.runs.createExternal({ ...input, validHours, workloadName: workload, baseUrl }).catch(unknownWorkload);
  await audit(scope, request, {
    action: "run.external",
    subjectKind: "run",
    subjectId: created.id,
    detail: { name: input.name ?? null, workload: workload ?? null, generators: input.generators },
  });
  return NextResponse.json(created, { status: 201 });
});
