// The worker's metrics and health listener (OPSBENCH_WORKER_METRICS_PORT; off when unset): GET /metrics, the
// process's Prometheus series (packages/jobs metrics.ts), and GET /health, 200 while this worker's own heartbeat in
// Redis is fresh (what the container's healthcheck probes: a plain HTTP request, no second Node process).
// /metrics needs OPSBENCH_METRICS_TOKEN as a bearer token when that is set, else a loopback client.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { forwardedByProxy, metricsAccess, metricsText } from "@opsbench/jobs";
import type { Redis } from "ioredis";
import { ownHeartbeatAge } from "./heartbeat-age";
import type { Logger } from "./logger";

export interface MetricsServerOptions {
  port: number;
  host: string;
  token?: string;
  redis: Redis;
}

export async function startMetricsServer(opts: MetricsServerOptions, log: Logger): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET") {
      res.writeHead(405, { allow: "GET" }).end();
      return;
    }
    if (path === "/health") {
      ownHeartbeatAge(opts.redis, os.hostname()).then(
        (age) => {
          res.writeHead(age === null ? 503 : 200, { "content-type": "text/plain" });
          res.end(age === null ? `no fresh heartbeat from ${os.hostname()}\n` : `heartbeat ${Math.round(age / 1000)} s old\n`);
        },
        (err: Error) => res.writeHead(503, { "content-type": "text/plain" }).end(`cannot read heartbeats: ${err.message}\n`),
      );
      return;
    }
    if (path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("only /metrics and /health here\n");
      return;
    }
    const forwarded = forwardedByProxy((name) => req.headers[name] as string | undefined);
    if (!metricsAccess(opts.token, req.headers.authorization ?? null, req.socket.remoteAddress ?? null, forwarded)) {
      res.writeHead(opts.token ? 401 : 403, { "content-type": "text/plain" });
      res.end(
        opts.token ? "a bearer token (OPSBENCH_METRICS_TOKEN) is needed\n" : "only loopback clients without OPSBENCH_METRICS_TOKEN\n",
      );
      return;
    }
    metricsText().then(
      ({ body, contentType }) => res.writeHead(200, { "content-type": contentType }).end(body),
      (err: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(`metrics failed: ${err.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`;
  log.info({ url }, "metrics listening");
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
