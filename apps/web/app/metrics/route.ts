// GET /metrics: the web process's Prometheus series (packages/jobs metrics.ts): API requests by route and status,
// the run and study queues' lengths, the process's own. With OPSBENCH_METRICS_TOKEN set it needs that bearer token;
// without, it answers only a loopback client that did not come through a proxy (docs/self-hosting.md "Metrics").
import { metricsAccess, metricsText, registerQueueLengths } from "@opsbench/jobs";
import { env } from "@/lib/env";
import { cameThroughProxy, peerAddress } from "@/lib/server/client-address";
import { getRunQueue, getStudyQueue } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

declare global {
  var opsbenchWebQueueLengths: boolean | undefined;
}

export async function GET(request: Request) {
  // Next adds X-Forwarded-For to every request it hands a route: whether the client's request had one is in the stamp.
  const forwarded = cameThroughProxy(request.headers);
  if (!metricsAccess(env.OPSBENCH_METRICS_TOKEN, request.headers.get("authorization"), peerAddress(request.headers), forwarded)) {
    const message = env.OPSBENCH_METRICS_TOKEN
      ? "/metrics needs the bearer token OPSBENCH_METRICS_TOKEN names (Authorization: Bearer <token>)"
      : "/metrics answers loopback clients only; set OPSBENCH_METRICS_TOKEN to scrape it from elsewhere";
    return new Response(`${message}\n`, {
      status: env.OPSBENCH_METRICS_TOKEN ? 401 : 403,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    });
  }
  // Read from Redis at scrape time: the web app enqueues runs and studies, so it can say how long their queues are.
  if (!globalThis.opsbenchWebQueueLengths) {
    globalThis.opsbenchWebQueueLengths = true;
    registerQueueLengths(() => [getRunQueue(), getStudyQueue()]);
  }
  const { body, contentType } = await metricsText();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}
