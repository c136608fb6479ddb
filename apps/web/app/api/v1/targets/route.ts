import { NextResponse } from "next/server";
import { toTargetItem } from "@/lib/api/dto";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseBody } from "@/lib/api/errors";
import { refuseEndpointAtSave } from "@/lib/server/endpoint-policy";
import { audit } from "@/lib/server/audit";
import { assertCredentialsOpenTo } from "@/lib/server/credential-role";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ scope, member }) =>
  NextResponse.json((await scope.targets.list()).map((t) => toTargetItem(t, member.role))),
);

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
