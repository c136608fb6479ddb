// Server-sent events for one study: the worker's progress notices on the study's channel.
import { isUuid } from "@opsbench/db";
import { studyChannel } from "@opsbench/jobs";
import { ApiError, apiRoute } from "@/lib/api/errors";
import { sseFromChannel } from "@/lib/server/sse-from-channel";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  if (!isUuid(params.id)) throw new ApiError("not_found", `study "${params.id}" not found`);
  await scope.studies.assertExists(params.id); // 404 for a study that is not in this workspace
  return sseFromChannel(request, studyChannel(params.id));
});
