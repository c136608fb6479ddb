// Server-sent events for one run: the worker's notices on the run's channel.
import { isUuid } from "@opsbench/db";
import { runChannel } from "@opsbench/jobs";
import { ApiError, apiRoute } from "@/lib/api/errors";
import { sseFromChannel } from "@/lib/server/sse-from-channel";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  if (!isUuid(params.id)) throw new ApiError("not_found", `run "${params.id}" not found`);
  await scope.runs.assertExists(params.id); // 404 for a run that is not in this workspace
  return sseFromChannel(request, runChannel(params.id));
});
