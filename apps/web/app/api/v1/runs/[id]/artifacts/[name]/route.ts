import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseInput } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * One file the run's script wrote with handleSummary(), as an attachment: never rendered by this origin (a script
 * may write HTML), whatever its name says.
 */
export const GET = apiRoute<{ id: string; name: string }>(async ({ scope, params }) => {
  const { id, name } = parseInput(API_CONTRACTS["GET /api/v1/runs/{id}/artifacts/{name}"].params, params);
  const artifact = await scope.runs.artifact(id, name);
  const filename = name.split("/").pop() ?? "artifact";
  return new Response(new Uint8Array(artifact.content), {
    headers: {
      "content-type": "application/octet-stream",
      "content-disposition": `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
    },
  });
});
