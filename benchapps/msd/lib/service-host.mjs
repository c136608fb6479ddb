// Hosts any subset of a multi-service app's services in one process, so the same
// code runs co-located, tiered or isolated (study 003's isolation domains).
//
// Where a process learns what to serve and where the others are:
// - under opsbench (docs/local-engine.md): OPSBENCH_SERVE (JSON: service, instance,
//   port) and OPSBENCH_URLS (JSON: every service's instance URLs);
// - by hand: MSD_SERVICES (comma list, default: every service) hosted in this
//   process, the first of them listening on PORT, and <SERVICE>_URLS /
//   <SERVICE>_URL for the services hosted elsewhere.
//
// Calls between services are RPCs: `call(service, method, args)`, round-robin over
// the service's instances. A call to an instance hosted in this same process is a
// function call, but its arguments and result are still serialized and parsed
// (as MSDBench's Linux build serialized with Thrift); a call to another process is
// an HTTP POST to <url>/rpc/<method> over a keep-alive connection. So co-located
// saves the network hop and the second event loop, not the serialization.
import http from "node:http";

/** An expected failure with an HTTP status (404, 409...), carried across processes. */
export class RpcError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

function httpRpc(url, method, args) {
  const body = JSON.stringify(args ?? null);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/rpc/${method}`,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed;
          try {
            parsed = JSON.parse(text);
          } catch {
            reject(new Error(`${url}/rpc/${method}: not JSON (${res.statusCode}): ${text.slice(0, 200)}`));
            return;
          }
          if (res.statusCode === 200) resolve(parsed.result);
          else reject(new RpcError(res.statusCode ?? 500, parsed.error ?? `status ${res.statusCode}`));
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function envName(service) {
  return service.toUpperCase().replace(/-/g, "_");
}

/** What this process hosts: [{ service, instance, port|null }], and every service's instance URLs. */
export function readPlacement(env, serviceNames, defaultInstances, entry = serviceNames[0]) {
  if (env.OPSBENCH_SERVE) {
    const serve = JSON.parse(env.OPSBENCH_SERVE);
    const urls = env.OPSBENCH_URLS ? JSON.parse(env.OPSBENCH_URLS) : {};
    for (const s of serve)
      if (!serviceNames.includes(s.service))
        throw new Error(`OPSBENCH_SERVE names an unknown service "${s.service}" (known: ${serviceNames.join(", ")})`);
    return { serve: serve.map((s) => ({ service: s.service, instance: s.instance ?? 0, port: s.port })), urls };
  }
  const all = [entry, ...serviceNames.filter((s) => s !== entry)];
  const hosted = (env.MSD_SERVICES ?? all.join(","))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of hosted)
    if (!serviceNames.includes(s)) throw new Error(`MSD_SERVICES names an unknown service "${s}" (known: ${serviceNames.join(", ")})`);
  const urls = {};
  for (const s of serviceNames) {
    const list = env[`${envName(s)}_URLS`] ?? env[`${envName(s)}_URL`];
    if (list)
      urls[s] = list
        .split(",")
        .map((u) => u.trim())
        .filter(Boolean);
  }
  const port = Number(env.PORT ?? 8080);
  const serve = [];
  hosted.forEach((service, i) => {
    const count = urls[service] ? 1 : (defaultInstances[service] ?? 1);
    // By hand, only the first hosted service listens (on PORT); the others answer in-process calls.
    for (let instance = 0; instance < count; instance++) serve.push({ service, instance, port: i === 0 && instance === 0 ? port : null });
  });
  return { serve, urls };
}

/**
 * Starts the services this process hosts. By hand with every service in one
 * process, the `entry` service listens on PORT.
 * `services`: name -> (ctx) => ({ rpc: { method: async (args) => result }, http?: async (req, res, url, body) => boolean })
 * where ctx = { call(service, method, args), instance, instances(service) }.
 */
export async function hostServices({ app, services, entry, defaultInstances = {}, env = process.env }) {
  const names = Object.keys(services);
  const { serve, urls } = readPlacement(env, names, defaultInstances, entry);
  const host = env.HOST ?? "127.0.0.1";

  // Every instance of every service: hosted here (a handler object) or elsewhere (a URL).
  const local = new Map(); // "service#instance" -> handlers
  const targets = {};
  const cursor = {};
  const call = async (service, method, args) => {
    const list = targets[service];
    if (!list?.length) throw new Error(`${app}: no instance of "${service}" is hosted here or named in ${envName(service)}_URL(S)`);
    const i = ((cursor[service] ?? -1) + 1) % list.length;
    cursor[service] = i;
    const target = list[i];
    if (target.url) return httpRpc(target.url, method, args);
    const fn = target.handlers.rpc[method];
    if (!fn) throw new RpcError(404, `${service} has no method "${method}"`);
    // Serialized both ways, as across a process boundary, so co-located pays the same encoding.
    const result = await fn(JSON.parse(JSON.stringify(args ?? null)));
    return result === undefined ? null : JSON.parse(JSON.stringify(result));
  };

  for (const s of serve) {
    const ctx = { call, instance: s.instance, service: s.service };
    local.set(`${s.service}#${s.instance}`, services[s.service](ctx));
  }
  for (const name of names) {
    const hostedHere = serve.filter((s) => s.service === name);
    const remote = urls[name] ?? [];
    if (remote.length) {
      targets[name] = remote.map((url, instance) => {
        const handlers = local.get(`${name}#${instance}`);
        return hostedHere.some((s) => s.instance === instance) && handlers ? { handlers } : { url };
      });
    } else {
      targets[name] = hostedHere.map((s) => ({ handlers: local.get(`${name}#${s.instance}`) }));
    }
  }

  const servers = [];
  for (const s of serve.filter((x) => x.port !== null && x.port !== undefined)) {
    const handlers = local.get(`${s.service}#${s.instance}`);
    const server = http.createServer((req, res) => handle(req, res, handlers).catch((err) => fail(res, err)));
    server.keepAliveTimeout = 65_000;
    await new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(s.port, host, resolve);
    });
    servers.push(server);
  }
  const hostedList = [...new Set(serve.map((s) => s.service))].join(",");
  console.log(`${app}: hosting ${serve.map((s) => `${s.service}#${s.instance}${s.port ? `@${host}:${s.port}` : ""}`).join(" ")}`);
  const stop = () => {
    for (const srv of servers) srv.close();
    agent.destroy();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return { call, hosted: hostedList, servers };
}

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}

async function handle(req, res, handlers) {
  const url = new URL(req.url ?? "/", "http://localhost");
  const raw = req.method === "GET" || req.method === "HEAD" ? "" : await readBody(req);
  if (url.pathname === "/healthz") return send(res, 200, "ok", "text/plain");
  if (req.method === "POST" && url.pathname.startsWith("/rpc/")) {
    const fn = handlers.rpc[url.pathname.slice(5)];
    if (!fn) return send(res, 404, { error: `no method "${url.pathname.slice(5)}"` });
    let args;
    try {
      args = raw ? JSON.parse(raw) : null;
    } catch {
      return send(res, 400, { error: "the body is not JSON" });
    }
    const result = await fn(args);
    return send(res, 200, { result: result === undefined ? null : result });
  }
  if (handlers.http && (await handlers.http(req, res, url, raw))) return;
  return send(res, 404, { error: `not found: ${req.method} ${url.pathname}` });
}

export function send(res, status, body, type = "application/json") {
  const text = typeof body === "string" && type !== "application/json" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(text) });
  res.end(text);
  return true;
}

function fail(res, err) {
  if (res.headersSent) return res.destroy();
  if (err instanceof RpcError) return send(res, err.status, { error: err.message });
  console.error(`error: ${err?.stack ?? err}`);
  return send(res, 500, { error: String(err?.message ?? err) });
}

/** Parses a JSON request body, or throws a 400 naming what is wrong. */
export function jsonBody(raw) {
  if (!raw) return {};
  try {
    const v = JSON.parse(raw);
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error();
    return v;
  } catch {
    throw new RpcError(400, "the body must be a JSON object");
  }
}
