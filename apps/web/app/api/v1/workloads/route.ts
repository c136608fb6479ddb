import { workloadInput } from "@opsbench/core";
import { ScriptValidationUnavailable } from "@opsbench/jobs";
import { NextResponse } from "next/server";
import { toSpecItem } from "@/lib/api/dto";
import { ApiError, apiRoute, parseInput, readJson } from "@/lib/api/errors";
import { getScriptValidator } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ scope }) => NextResponse.json((await scope.workloads.list()).map(toSpecItem)));

/**
 * Creates a workload, or replaces the spec of the workload with that name. A
 * user's own k6 script is checked by a worker (k6 inspect) first: one that does
 * not parse is refused with k6's message at spec.source, and nothing is saved.
 */
export const POST = apiRoute(async ({ request, scope }) => {
  const input = parseInput(workloadInput, await readJson(request));
  if (input.spec.kind === "script") {
    let result;
    try {
      result = await getScriptValidator().validateScript(input.spec.source);
    } catch (err) {
      if (err instanceof ScriptValidationUnavailable) throw new ApiError("internal", `the script could not be checked: ${err.message}`);
      throw err;
    }
    if (!result.ok)
      throw new ApiError("invalid_input", `spec.source: ${result.message}`, [{ path: "spec.source", message: result.message }]);
  }
  return NextResponse.json(toSpecItem(await scope.workloads.put(input)), { status: 201 });
});
