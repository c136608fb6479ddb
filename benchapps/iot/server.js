// The IoT platform's core API of study 000 (users, devices, sensors, consumers,
// JWT sign-in, the HTTP ingest gateway) on Postgres. One service by default; with
// FUNCTION=<endpoint name> the process serves that endpoint only, as the study's
// OpenWhisk and Cloud Run deployments ran one function per endpoint.
import http from "node:http";
import { loadConfig } from "./config.js";
import { openDatabase } from "./db.js";
import { HttpError, endpoints, ensureAdmin, keys } from "./endpoints.js";
import { seedDatabase } from "./seed.js";

const log = (msg) => console.log(`iot: ${msg}`);
let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  console.error(`error: ${err.message}`);
  process.exit(2);
}

// The endpoints are listed before the database is opened, so a wrong FUNCTION fails at once.
let pool;
const db = { query: (...args) => pool.query(...args), connect: () => pool.connect() };
const all = [
  ...endpoints({ pool: db, secret: config.secret, scryptCost: config.scryptCost }),
  {
    name: "admin-seed",
    method: "POST",
    path: "/admin/seed",
    handler: async ({ headers }) => {
      if (keys(config.secret).claims(headers, "user").role !== "admin") throw new HttpError(403, "only the super user may seed");
      return [200, await seedDatabase(db, config)];
    },
  },
];
if (config.function && !all.some((e) => e.name === config.function)) {
  console.error(`error: FUNCTION="${config.function}" is not an endpoint; use one of ${all.map((e) => e.name).join(", ")}`);
  process.exit(2);
}
pool = await openDatabase({ ...config.database, log }).catch((err) => {
  console.error(`error: cannot open the database: ${err.message}`);
  process.exit(1);
});
await ensureAdmin(pool, { ...config.admin, scryptCost: config.scryptCost });
// IOT_SEED=1: seed before answering, so a fixed load (workload.json) finds its data.
if (config.seedOnStart) log(`seeded: ${JSON.stringify(await seedDatabase(pool, config).then(({ sample, ...counts }) => counts))}`);

const served = all
  .filter((e) => !config.function || e.name === config.function)
  .map((e) => {
    const names = [];
    const pattern = e.path.replace(/\/$/, "").replace(/:(\w+)/g, (_m, n) => {
      names.push(n);
      return "([^/]+)";
    });
    return { ...e, names, re: new RegExp(`^${pattern}/?$`) };
  });

function send(res, status, out) {
  const text = typeof out === "string" ? out : JSON.stringify(out);
  res.writeHead(status, {
    "content-type": typeof out === "string" ? "text/plain" : "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

async function handle(req, res) {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname === "/healthz") return send(res, 200, "ok");
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const raw = Buffer.concat(chunks).toString("utf8");
  let pathMatched = false;
  for (const e of served) {
    const m = e.re.exec(url.pathname);
    if (!m) continue;
    pathMatched = true;
    if (e.method !== req.method) continue;
    let rawBody = {};
    if (raw) {
      try {
        rawBody = JSON.parse(raw);
      } catch {
        throw new HttpError(400, "the body is not JSON");
      }
    }
    const body = rawBody && typeof rawBody === "object" && !Array.isArray(rawBody) ? rawBody : {};
    const params = Object.fromEntries(e.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    const [status, out] = await e.handler({ params, body, rawBody, headers: req.headers, query: url.searchParams });
    return send(res, status, out);
  }
  if (pathMatched) return send(res, 405, { error: `method ${req.method} not allowed on ${url.pathname}` });
  return send(res, 404, {
    error: config.function ? `this function serves ${served[0].method} ${served[0].path} only` : `not found: ${url.pathname}`,
  });
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    if (err instanceof HttpError) return send(res, err.status, { error: err.message });
    console.error(`error: ${err?.stack ?? err}`);
    send(res, 500, { error: "internal error" });
  });
});
server.keepAliveTimeout = 65_000;
server.on("error", (err) => {
  console.error(`error: ${err.message}`);
  process.exit(1);
});
server.listen(config.port, config.host, () =>
  log(`${config.function ? `function ${config.function}` : "all endpoints"} on http://${config.host}:${config.port}`),
);

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    server.close();
    setTimeout(() => process.exit(0), 1000).unref();
    pool.end().finally(() => process.exit(0));
  });
}
