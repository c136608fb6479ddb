import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ scope }) => NextResponse.json(await scope.retention.get()));

/** Sets how long finished runs keep their raw series; the worker's sweep prunes older ones (docs/faults.md). */
export const PUT = apiRoute(async ({ request, scope }) => {
  const { seriesRetentionDays } = await parseBody(API_CONTRACTS["PUT /api/v1/retention"].body, request);
  const r = await scope.retention.set(seriesRetentionDays);
  await audit(scope, request, { action: "retention.set", subjectKind: "workspace", subjectId: scope.workspaceId, detail: r });
  return NextResponse.json(r);
});
