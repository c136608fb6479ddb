// Server-sent events relaying a Redis pub/sub channel ("look again" notices from
// the worker; the rows stay the truth) as `event: update`, with a heartbeat, and
// unsubscribed as soon as the client goes away. Used by the run and study streams.
import { getChannelUpdates } from "./singletons";

const HEARTBEAT_MS = 15_000;

export function sseFromChannel(request: Request, channel: string): Response {
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
        const off = await getChannelUpdates().subscribe(channel, (message) => {
          // One SSE `data:` line per line of the message (JSON has none, but be safe).
          send(
            `event: update\n${message
              .split("\n")
              .map((l) => `data: ${l}`)
              .join("\n")}\n\n`,
          );
        });
        if (closed) off();
        else unsubscribe = off;
      } catch (err) {
        console.error(`events on ${channel}: subscribe failed: ${(err as Error).message}`);
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
}
