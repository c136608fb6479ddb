import { workloadInput } from "@opsbench/core";
import { NextResponse } from "next/server";
import { toSpecItem } from "@/lib/api/dto";
import { apiRoute, parseInput, readJson } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ scope }) => NextResponse.json((await scope.workloads.list()).map(toSpecItem)));

/** Creates a workload, or replaces the spec of the workload with that name. */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = parseInput(workloadInput, await readJson(request));
  return NextResponse.json(toSpecItem(await scope.workloads.put(input)), { status: 201 });
});
