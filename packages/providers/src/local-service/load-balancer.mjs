// The load balancer in front of a local-service: its own process (never the
// worker's event loop), on loopback, with backends changed at runtime through
// an admin port, as the autoscaler adds and removes replicas.
//
// Two modes (the target spec's `balancing`):
//   per-request    (default) an HTTP reverse proxy: every request goes to the
//                  next backend, round-robin, also on a kept-alive client
//                  connection (like an ALB or a Classic ELB in HTTP mode), so
//                  new replicas take load at once. Costs some CPU per request.
//   per-connection a TCP proxy: each client connection is given the next
//                  backend and sticks to it (like kube-proxy or an ELB in TCP
//                  mode); with keep-alive, new replicas only get new connections.
// A removed backend gets no new requests/connections; requests in flight finish.
//
//   node load-balancer.mjs '{"port":P,"adminPort":A,"mode":"per-request","backends":[{"id":"r0","host":"127.0.0.1","port":B}]}'
// Admin (on 127.0.0.1:A): GET /stats; PUT /backends {"backends":[...]} replaces the set.
import http from "node:http";
import net from "node:net";

let config;
try {
  config = JSON.parse(process.argv[2] ?? "");
  if (!Number.isInteger(config.port) || !Number.isInteger(config.adminPort) || !Array.isArray(config.backends))
    throw new Error("port, adminPort and backends are required");
  if (!["per-request", "per-connection"].includes(config.mode))
    throw new Error(`mode must be per-request or per-connection, not ${config.mode}`);
} catch (err) {
  console.error(
    `usage: load-balancer.mjs '{"port":..,"adminPort":..,"mode":"per-request","backends":[{"id":..,"host":..,"port":..}]}': ${err.message}`,
  );
  process.exit(2);
}

/** id -> { id, host, port, agent, active, total, removed } */
const backends = new Map();
/** Removed backends with requests (or connections) still in flight. */
const draining = new Map();
let next = 0;
let requests = 0;
let errors = 0;

function setBackends(list) {
  const want = new Map(list.map((b) => [String(b.id), b]));
  for (const [id, b] of backends) {
    if (!want.has(id)) {
      b.removed = true;
      backends.delete(id);
      if (b.active === 0) b.agent?.destroy();
      else draining.set(id, b);
    }
  }
  for (const [id, b] of want) {
    if (backends.has(id)) continue;
    backends.set(id, {
      id,
      host: b.host,
      port: b.port,
      active: 0,
      total: 0,
      removed: false,
      agent: config.mode === "per-request" ? new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 }) : null,
    });
  }
}
setBackends(config.backends);

function pick() {
  const live = [...backends.values()];
  if (live.length === 0) return null;
  next = (next + 1) % live.length;
  return live[next];
}

function release(b) {
  b.active--;
  if (b.removed && b.active === 0) {
    draining.delete(b.id);
    b.agent?.destroy();
  }
}

// Hop-by-hop headers (RFC 9110 7.6.1) are not forwarded.
const HOP = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"];
function endToEnd(headers) {
  const out = { ...headers };
  for (const h of HOP) delete out[h];
  return out;
}

let server;
if (config.mode === "per-request") {
  server = http.createServer((req, res) => {
    requests++;
    const b = pick();
    if (!b) {
      errors++;
      res.writeHead(503, { "content-type": "text/plain" }).end("no ready replica");
      return;
    }
    b.active++;
    b.total++;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      release(b);
    };
    const up = http.request(
      { host: b.host, port: b.port, method: req.method, path: req.url, headers: endToEnd(req.headers), agent: b.agent },
      (ur) => {
        res.writeHead(ur.statusCode ?? 502, endToEnd(ur.headers));
        ur.pipe(res);
      },
    );
    up.on("error", (err) => {
      errors++;
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(`bad gateway: ${err.code ?? err.message}`);
      else res.destroy();
      finish();
    });
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
      finish();
    });
    req.pipe(up);
  });
  // Longer than clients' idle timeouts, as an ALB's 60 s default.
  server.keepAliveTimeout = 65_000;
} else {
  server = net.createServer({ noDelay: true }, (client) => {
    requests++;
    const b = pick();
    if (!b) {
      errors++;
      client.destroy();
      return;
    }
    b.active++;
    b.total++;
    const upstream = net.connect({ host: b.host, port: b.port, noDelay: true });
    client.pipe(upstream).pipe(client);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      client.destroy();
      upstream.destroy();
      release(b);
    };
    client.on("error", close);
    upstream.on("error", () => {
      errors++;
      close();
    });
    client.on("close", close);
    upstream.on("close", close);
  });
}

const stats = () => ({
  mode: config.mode,
  requests, // per-request: HTTP requests; per-connection: connections
  errors,
  backends: [...backends.values()].map((b) => ({ id: b.id, host: b.host, port: b.port, active: b.active, total: b.total })),
  draining: [...draining.values()].map((b) => ({ id: b.id, active: b.active, total: b.total })),
});

const admin = http.createServer((req, res) => {
  const json = (status, body) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  if (req.method === "GET" && req.url === "/stats") return json(200, stats());
  if (req.method === "PUT" && req.url === "/backends") {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      try {
        const parsed = JSON.parse(body);
        if (!Array.isArray(parsed.backends) || parsed.backends.some((b) => b.id === undefined || !b.host || !Number.isInteger(b.port))) {
          return json(422, { error: "backends must be a list of {id, host, port}" });
        }
        setBackends(parsed.backends);
        json(200, stats());
      } catch (err) {
        json(400, { error: `not JSON: ${err.message}` });
      }
    });
    return;
  }
  json(404, { error: "GET /stats or PUT /backends" });
});

server.listen(config.port, "127.0.0.1", () => {
  admin.listen(config.adminPort, "127.0.0.1", () => {
    console.log(`load balancer (${config.mode}) on 127.0.0.1:${config.port}, admin on :${config.adminPort}, ${backends.size} backend(s)`);
  });
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));
