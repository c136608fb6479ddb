import { NotFoundError } from "@opsbench/db";
import { NextResponse } from "next/server";
import { type ShareInput, shareInputs, shareKindInput } from "@opsbench/api";
import { storedSubject } from "@/features/share/share-subject";
import { ApiError, apiRoute, parseInput, readJson } from "@/lib/api/errors";
import { originOf } from "@/lib/api/request-guard";
import { audit } from "@/lib/server/audit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Where in the body a missing run or study was named, for the 422. */
function pathOf(input: ShareInput, err: NotFoundError): string {
  if (input.kind === "run") return "subject.runId";
  if (input.kind === "study") return "subject.studyId";
  const gi = input.subject.groups.findIndex((g) => g.runIds.includes(err.key));
  return gi >= 0 ? `subject.groups.${gi}.runIds.${input.subject.groups[gi]!.runIds.indexOf(err.key)}` : "subject";
}

/**
 * Creates a read-only share link: `{ kind: "run", subject: { runId } }`,
 * `{ kind: "study", subject: { studyId } }` or `{ kind: "comparison", subject: { groups } }`,
 * with an optional title and expiry time. The token is in the answer only: just its hash is stored.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const raw = await readJson(request);
  const { kind } = parseInput(shareKindInput, raw);
  const input = parseInput(shareInputs[kind], raw) as ShareInput;
  const expiresAt = input.expiresAt === undefined ? undefined : new Date(input.expiresAt);
  if (expiresAt && expiresAt.getTime() <= Date.now())
    throw new ApiError("invalid_input", "expiresAt: the time is past", [{ path: "expiresAt", message: "the time is past" }]);
  let link: Awaited<ReturnType<typeof scope.shares.create>>;
  try {
    link = await scope.shares.create({ kind: input.kind, subject: storedSubject(input), title: input.title, expiresAt });
  } catch (err) {
    if (err instanceof NotFoundError && (err.entity === "run" || err.entity === "study")) {
      const path = pathOf(input, err);
      throw new ApiError("invalid_input", `${path}: ${err.entity} "${err.key}" does not exist`, [
        { path, message: `no ${err.entity} "${err.key}"` },
      ]);
    }
    throw err;
  }
  await audit(scope, request, { action: "share.create", subjectKind: "share", subjectId: link.id, detail: { kind: link.kind } });
  const path = `/share/${link.token}`;
  return NextResponse.json(
    {
      id: link.id,
      kind: link.kind,
      title: input.title ?? null,
      token: link.token,
      path,
      url: `${originOf(request)}${path}`,
      createdAt: link.createdAt.toISOString(),
      expiresAt: link.expiresAt?.toISOString() ?? null,
    },
    { status: 201, headers: { "cache-control": "no-store" } },
  );
});

/** The workspace's links, newest first (never their tokens: only hashes are kept). */
export const GET = apiRoute(async ({ scope }) =>
  NextResponse.json(
    (await scope.shares.list()).map((l) => ({
      id: l.id,
      kind: l.kind,
      title: l.title,
      subject: l.subject,
      createdAt: l.createdAt.toISOString(),
      revokedAt: l.revokedAt?.toISOString() ?? null,
      expiresAt: l.expiresAt?.toISOString() ?? null,
    })),
    { headers: { "cache-control": "no-store" } },
  ),
);
