import { loadInstanceCeilings, setInstanceCeilings } from "@opsbench/db";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { audit } from "@/lib/server/audit";
import { getDb } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The instance's ceilings: any member may read them, so an owner knows how high their workspace's limits may go. */
export const GET = apiRoute(async () => NextResponse.json(await loadInstanceCeilings(getDb())));

/** Sets some ceilings (the instance admin only: the contract says so and apiRoute checks it); answers all of them. */
export const PUT = apiRoute(async ({ request, scope }) => {
  const changes = await parseBody(API_CONTRACTS["PUT /api/v1/instance/ceilings"].body, request);
  const ceilings = await setInstanceCeilings(getDb(), changes);
  await audit(scope, request, { action: "ceilings.set", subjectKind: "instance", subjectId: "ceilings", detail: changes });
  return NextResponse.json(ceilings);
});
