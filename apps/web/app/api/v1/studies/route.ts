import { limitPhrase, refName, studyRunCount, studyRunProduct } from "@opsbench/core";
import { NotFoundError } from "@opsbench/db";
import { startStudy } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { ApiError, apiRoute, parseBody, parseQuery } from "@/lib/api/errors";
import { listAnswer } from "@/lib/api/list-answer";
import { toStudyListItem } from "@/lib/api/study-list-item";
import { audit } from "@/lib/server/audit";
import { assertCredentialsOpenTo, requesterOf } from "@/lib/server/credential-role";
import { admitNewWork } from "@/lib/server/run-admission";
import { assertRateSourceInWorkspace, assertWorkloadFits } from "@/lib/server/script-check";
import { getStudyQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The workspace's studies, newest first (the /studies page); ?cursor=&limit= pages through every one (list-answer.ts). */
export const GET = apiRoute(async ({ request, scope }) => {
  const query = parseQuery(API_CONTRACTS["GET /api/v1/studies"].query, request);
  return listAnswer(request, await scope.studies.page(query), toStudyListItem);
});

/**
 * Creates a study (targets x workloads x repetitions; docs/studies.md) with all
 * its runs in one transaction, and enqueues it. Bad input and unknown target or
 * workload names are 422s naming the field; nothing is written then. Inline
 * workloads are checked by a worker like saved ones (script parses, limits hold).
 */
export const POST = apiRoute(async ({ request, scope, member }) => {
  const input = await parseBody(API_CONTRACTS["POST /api/v1/studies"].body, request);
  await assertCredentialsOpenTo(
    member,
    input.targets.map((ref, i) => ({ ref, path: `targets.${i}` })),
  );
  const limits = await scope.limits.get();
  const runCount = studyRunCount(input);
  if (runCount > limits.maxStudyRuns) {
    const message = `${runCount} runs (${studyRunProduct(input)}); ${limitPhrase(limits, "maxStudyRuns")}`;
    throw new ApiError("invalid_input", `repetitions: ${message}`, [{ path: "repetitions", message }]);
  }
  for (const [i, w] of input.workloads.entries())
    if (typeof w !== "string") {
      await assertRateSourceInWorkspace(scope, w.spec, `workloads.${i}.spec`);
      await assertWorkloadFits(w.spec, limits, `workloads.${i}.spec`, scope.workspaceId);
    }
  await admitNewWork(scope, limits, runCount);
  try {
    const { study, runs, cells } = await startStudy(scope, getStudyQueue(), input, { requestedBy: requesterOf(member) });
    await audit(scope, request, {
      action: "study.start",
      subjectKind: "study",
      subjectId: study.id,
      detail: { name: study.name, runs: runs.length },
    });
    return NextResponse.json(
      { id: study.id, status: study.status, order: study.runOrder, seed: study.seed, cells: cells.length, runs: runs.length },
      { status: 201 },
    );
  } catch (err) {
    if (err instanceof NotFoundError && (err.entity === "target" || err.entity === "workload")) {
      const list = err.entity === "target" ? input.targets : input.workloads;
      const index = list.findIndex((r) => typeof r === "string" && refName(r) === err.key);
      throw new ApiError("invalid_input", `${err.entity} "${err.key}" does not exist`, [
        { path: `${err.entity}s.${index}`, message: `no ${err.entity} named "${err.key}"` },
      ]);
    }
    throw err;
  }
});
