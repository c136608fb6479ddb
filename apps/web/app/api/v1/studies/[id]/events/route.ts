// Server-sent events for one study: relays the worker's Redis pub/sub messages
// ("look again" notices with progress; the Study row stays the truth) as `event: update`.
import { isUuid } from "@opsbench/db";
import { ApiError, apiRoute } from "@/lib/api/errors";
import { getStudyUpdates } from "../../_lib/study-server";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const HEARTBEAT_MS = 15_000;

export const GET = apiRoute<{ id: string }>(async ({ request, scope, params }) => {
  const studyId = params.id;
  if (!isUuid(studyId)) throw new ApiError("not_found", `study "${studyId}" not found`);
  await scope.studies.assertExists(studyId); // 404 for a study that is not in this workspace

  const encoder = new TextEncoder();
  let cleanup = () => {};

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let closed = false;
      const send = (chunk: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(chunk));
        } catch {
          cleanup();
        }
      };
      const heartbeat = setInterval(() => send(`: heartbeat ${new Date().toISOString()}\n\n`), HEARTBEAT_MS);
      let unsubscribe = () => {};
      cleanup = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        unsubscribe();
        request.signal.removeEventListener("abort", cleanup);
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      };
      request.signal.addEventListener("abort", cleanup);

      send(`retry: 3000\n: connected\n\n`);
      try {
        const off = await getStudyUpdates().subscribe(studyId, (message) => {
          // One SSE `data:` line per line of the message (JSON has none, but be safe).
          send(`event: update\n${message.split("\n").map((l) => `data: ${l}`).join("\n")}\n\n`);
        });
        if (closed) off();
        else unsubscribe = off;
      } catch (err) {
        console.error(`study events ${studyId}: subscribe failed: ${(err as Error).message}`);
        cleanup();
      }
      if (request.signal.aborted) cleanup();
    },
    cancel() {
      cleanup();
    },
  });

  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
});
