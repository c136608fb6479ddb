import { NextResponse } from "next/server";
import { toTargetItem } from "@/lib/api/dto";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { asksForPage } from "@opsbench/api";
import { apiRoute, parseBody, parseQuery } from "@/lib/api/errors";
import { listAnswer } from "@/lib/api/list-answer";
import { refuseEndpointAtSave } from "@/lib/server/endpoint-policy";
import { audit } from "@/lib/server/audit";
import { assertCredentialsOpenTo } from "@/lib/server/credential-role";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The workspace's targets by name: every one, or a page with ?cursor=&limit= (list-answer.ts). */
export const GET = apiRoute(async ({ request, scope, member }) => {
  const query = parseQuery(API_CONTRACTS["GET /api/v1/targets"].query, request);
  const page = asksForPage(request) ? await scope.targets.page(query) : { items: await scope.targets.list(), nextCursor: null };
  return listAnswer(request, page, (t) => toTargetItem(t, member.role));
});

/** Creates a target, or replaces the spec of the target with that name. */
export const POST = apiRoute(async ({ request, scope, member }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/targets"].body, request);
  // An editor may not name a credential the owners keep to themselves (credentials by role).
  await assertCredentialsOpenTo(member, [{ ref: input, path: "spec.credential" }]);
  // An address the host policy refuses whatever a run finds is refused now, next to its field, not at Start run.
  refuseEndpointAtSave(input.spec);
  const target = await scope.targets.put(input);
  await audit(scope, request, { action: "target.create", subjectKind: "target", subjectId: target.id, detail: { name: target.name } });
  return NextResponse.json(toTargetItem(target, member.role), { status: 201 });
});
