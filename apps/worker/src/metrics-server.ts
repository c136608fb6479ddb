// The worker's metrics and health listener: GET /metrics, the process's Prometheus series (packages/jobs metrics.ts),
// and GET /health, 200 while this worker's own heartbeat in Redis is fresh. On a TCP port
// (OPSBENCH_WORKER_METRICS_PORT) and/or a unix socket (OPSBENCH_WORKER_HEALTH_SOCKET: the container's healthcheck
// probes it with packages/jobs/health-probe.mjs; a socket, because compose's workers share the runner's network
// namespace, where scaled workers could not all bind one port, while each container has its own /tmp).
// /metrics needs OPSBENCH_METRICS_TOKEN as a bearer token when that is set, else a loopback client or the socket.
import { rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { forwardedByProxy, metricsAccess, metricsText } from "@opsbench/jobs";
import type { Redis } from "ioredis";
import { ownHeartbeatAge } from "./heartbeat-age";
import type { Logger } from "./logger";

export interface MetricsServerOptions {
  /** A TCP port and address, and/or a unix socket's path. */
  tcp?: { port: number; host: string };
  socket?: string;
  token?: string;
  redis: Redis;
}

export async function startMetricsServer(opts: MetricsServerOptions, log: Logger): Promise<{ url: string | null; close(): Promise<void> }> {
  const handler = (viaSocket: boolean) => (req: IncomingMessage, res: ServerResponse) => {
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
    // A unix socket's client has no address: it is on this machine, let in by the socket file's permissions.
    const client = viaSocket ? "127.0.0.1" : (req.socket.remoteAddress ?? null);
    if (!metricsAccess(opts.token, req.headers.authorization ?? null, client, forwarded)) {
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
  };
  const servers: Server[] = [];
  const listen = (server: Server, ...args: [number, string] | [string]) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(...(args as [number, string]), () => resolve());
    });
  let url: string | null = null;
  if (opts.tcp) {
    const server = createServer(handler(false));
    await listen(server, opts.tcp.port, opts.tcp.host);
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    url = `http://${opts.tcp.host.includes(":") ? `[${opts.tcp.host}]` : opts.tcp.host}:${port}`;
  }
  if (opts.socket) {
    // A socket file left by a worker that was killed would refuse the bind.
    rmSync(opts.socket, { force: true });
    const server = createServer(handler(true));
    await listen(server, opts.socket);
    servers.push(server);
  }
  log.info({ url, socket: opts.socket ?? null }, "metrics and health listening");
  return {
    url,
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      ).then(() => {}),
  };
}
