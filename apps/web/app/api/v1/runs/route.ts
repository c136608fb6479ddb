import { NotFoundError } from "@opsbench/db";
import { startRun } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody, parseQuery } from "@/lib/api/errors";
import { listAnswer } from "@/lib/api/list-answer";
import { toRunListItem } from "@/lib/api/run-list-item";
import { audit } from "@/lib/server/audit";
import { assertCredentialsOpenTo, requesterOf } from "@/lib/server/credential-role";
import { admitNewWork } from "@/lib/server/run-admission";
import { getRunQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The latest runs; ?commit= (a prefix), ?branch=, ?label=key=value keep those whose provenance matches; ?cursor=&limit=
 * pages through every one (list-answer.ts).
 */
export const GET = apiRoute(async ({ request, scope }) => {
  const query = parseQuery(API_CONTRACTS["GET /api/v1/runs"].query, request);
  return listAnswer(request, await scope.runs.page(query), toRunListItem);
});

/** Creates a run of an existing target and workload (by name) and enqueues it, if the workspace's limits allow one more now. */
export const POST = apiRoute(async ({ request, scope, member }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/runs"].body, request);
  await assertCredentialsOpenTo(member, [{ ref: input.target, path: "target" }]);
  // A secret the workspace does not have is bad input now, not a run that fails on the worker later.
  const missingSecrets = await scope.scriptSecrets.missing(input.secrets ?? []);
  if (missingSecrets.length)
    throw new ApiError(
      "invalid_input",
      `no workspace secret named ${missingSecrets.join(", ")} (an owner adds it under Settings, or POST /api/v1/secrets)`,
      missingSecrets.map((name) => ({ path: "secrets", message: `no secret named ${name}` })),
    );
  await admitNewWork(scope, await scope.limits.get());
  try {
    const run = await startRun(scope, getRunQueue(), {
      targetName: input.target,
      workloadName: input.workload,
      requestedBy: requesterOf(member),
      provenance: input.provenance,
      scriptEnv: input.env,
      scriptSecrets: input.secrets,
    });
    await audit(scope, request, { action: "run.start", subjectKind: "run", subjectId: run.id, detail: { ...input } });
    return NextResponse.json({ id: run.id, status: run.status }, { status: 201 });
  } catch (err) {
    // A name that does not exist is bad input, not a missing resource at this URL.
    if (err instanceof NotFoundError && (err.entity === "target" || err.entity === "workload")) {
      throw new ApiError("invalid_input", `${err.entity} "${err.key}" does not exist`, [
        { path: err.entity, message: `no ${err.entity} named "${err.key}"` },
      ]);
    }
    throw err;
  }
});
