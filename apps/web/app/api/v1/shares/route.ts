import { NotFoundError } from "@opsbench/db";
import { NextResponse } from "next/server";
import { shareInputs, shareKindInput, storedSubject, type ShareInput } from "@/app/share/share-subject";
import { ApiError, apiRoute, parseInput, readJson } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The origin the client used (behind a proxy: the forwarded host and protocol). */
function originOf(request: Request): string {
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  const proto = request.headers.get("x-forwarded-proto") ?? url.protocol.replace(/:$/, "");
  return host ? `${proto}://${host}` : url.origin;
}

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
 * with an optional title. The token is in the answer only: just its hash is stored.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const raw = await readJson(request);
  const { kind } = parseInput(shareKindInput, raw);
  const input = parseInput(shareInputs[kind], raw) as ShareInput;
  let link: Awaited<ReturnType<typeof scope.shares.create>>;
  try {
    link = await scope.shares.create({ kind: input.kind, subject: storedSubject(input), title: input.title });
  } catch (err) {
    if (err instanceof NotFoundError && (err.entity === "run" || err.entity === "study")) {
      const path = pathOf(input, err);
      throw new ApiError("invalid_input", `${path}: ${err.entity} "${err.key}" does not exist`, [
        { path, message: `no ${err.entity} "${err.key}"` },
      ]);
    }
    throw err;
  }
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
    })),
    { headers: { "cache-control": "no-store" } },
  ),
);
