// The e-commerce app of study 004 (stateful serverless functions) behind the
// study's HTTP API, in memory, in one process (see store.js). Adds what the study
// lacked: a consistency check after a run (GET /admin/consistency).
import http from "node:http";
import { writeFileSync } from "node:fs";
import { ShopError, Store, seededRandom } from "./store.js";

const env = process.env;
const port = Number(env.PORT ?? 8080);
const host = env.HOST ?? "127.0.0.1";
const allowCorruption = env.SHOP_ALLOW_CORRUPTION === "1";
const distribution = env.SHOP_KEY_DISTRIBUTION ?? "uniform";
if (!["uniform", "zipf"].includes(distribution)) {
  console.error(`error: SHOP_KEY_DISTRIBUTION must be "uniform" or "zipf", not "${distribution}"`);
  process.exit(2);
}

const store = new Store({
  random: seededRandom(Number(env.SHOP_SEED ?? 42)),
  distribution,
  zipfExponent: Number(env.SHOP_ZIPF_EXPONENT ?? 1.25),
});
const seed = {
  products: Number(env.SHOP_SEED_PRODUCTS ?? 0),
  users: Number(env.SHOP_SEED_USERS ?? 0),
  carts: Number(env.SHOP_SEED_CARTS ?? 0),
};
if (seed.products > 0 || seed.users > 0 || seed.carts > 0) {
  const seeded = store.seed({ ...seed, stock: Number(env.SHOP_SEED_STOCK ?? 100), credits: Number(env.SHOP_SEED_CREDITS ?? 1000) });
  console.log(`shop: seeded ${seeded.products} products, ${seeded.users} users, ${seeded.carts} carts`);
}

function int(value, name, { min = 0, max = 1e12, optional = false } = {}) {
  if (value === undefined && optional) return undefined;
  if (!Number.isInteger(value) || value < min || value > max) throw new ShopError(400, `${name} must be an integer from ${min} to ${max}`);
  return value;
}

function id(value, name) {
  if (typeof value !== "string" || value.length === 0 || value.length > 64) throw new ShopError(400, `${name} must be a non-empty string`);
  return value;
}

function body(raw) {
  if (!raw) return {};
  let v;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new ShopError(400, "the body is not JSON");
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new ShopError(400, "the body must be a JSON object");
  return v;
}

/** [method, path pattern, handler(params, body, query)] in the study's API (appendix A), plus reads and admin. */
const routes = [
  [
    "POST",
    "/products",
    (_p, b) => [
      201,
      { id: store.createProduct({ price: int(b.price, "price", { optional: true }), stock: int(b.stock, "stock", { optional: true }) }) },
    ],
  ],
  [
    "POST",
    "/products/:id",
    (p, b) => [
      200,
      store.updateProduct(p.id, { price: int(b.price, "price", { optional: true }), stock: int(b.stock, "stock", { optional: true }) }),
    ],
  ],
  [
    "GET",
    "/products/:id",
    (p) => {
      const x = store.product(p.id);
      return [200, { id: p.id, price: x.price, stock: x.stock }];
    },
  ],
  [
    "GET",
    "/products/:id/freq-items",
    async (p, _b, q) => {
      const top = int(q.has("top") ? Number(q.get("top")) : 3, "top", { min: 1, max: 10 });
      const depth = int(q.has("depth") ? Number(q.get("depth")) : 1, "depth", { min: 1, max: 5 });
      return [200, await store.freqItems(p.id, top, depth)];
    },
  ],
  ["POST", "/users", (_p, b) => [201, { id: store.createUser({ credits: int(b.credits, "credits", { optional: true }) }) }]],
  ["GET", "/users/:id", (p) => [200, { id: p.id, credits: store.user(p.id).credits }]],
  ["PATCH", "/users/:id/credits/add", (p, b) => [200, store.addCredits(p.id, int(b.credits, "credits", { min: 1 }))]],
  ["POST", "/shopping-carts", () => [201, { id: store.createCart() }]],
  ["GET", "/shopping-cart/:id", (p) => [200, { id: p.id, items: Object.fromEntries(store.cart(p.id)) }]],
  [
    "POST",
    "/shopping-cart/:id/products",
    (p, b) => [200, store.addToCart(p.id, id(b.productId, "productId"), int(b.amount ?? 1, "amount", { min: 1, max: 1e6 }))],
  ],
  ["POST", "/orders/checkout", async (_p, b) => [200, await store.checkout(id(b.cartId, "cartId"), id(b.userId, "userId"))]],
  ["GET", "/admin/consistency", () => [200, store.consistency()]],
  // Tests only: breaks the invariant on purpose, to show the check catches it.
  [
    "POST",
    "/admin/corrupt",
    (_p, b) => {
      if (!allowCorruption) throw new ShopError(403, "corruption is disabled (start the shop with SHOP_ALLOW_CORRUPTION=1, in tests only)");
      const productId = b.productId === undefined ? store.products.keys().next().value : id(b.productId, "productId");
      if (productId === undefined) throw new ShopError(404, "no product to corrupt");
      const delta = int(b.stockDelta ?? 1, "stockDelta", { min: -1e6, max: 1e6 });
      store.product(productId).stock += delta;
      return [200, { productId, stock: store.product(productId).stock }];
    },
  ],
].map(([method, pattern, handler]) => {
  const names = [];
  const re = new RegExp(
    `^${pattern.replace(/:(\w+)/g, (_m, n) => {
      names.push(n);
      return "([^/]+)";
    })}$`,
  );
  return { method, re, names, handler };
});

async function handle(req, res) {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname === "/healthz") return send(res, 200, "ok");
  const chunks = [];
  for await (const c of req) chunks.push(c);
  let pathMatched = false;
  for (const r of routes) {
    const m = r.re.exec(url.pathname);
    if (!m) continue;
    pathMatched = true;
    if (r.method !== req.method) continue;
    const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    const [status, out] = await r.handler(params, body(Buffer.concat(chunks).toString("utf8")), url.searchParams);
    return send(res, status, out);
  }
  return pathMatched
    ? send(res, 405, { error: `method ${req.method} not allowed on ${url.pathname}` })
    : send(res, 404, { error: `not found: ${url.pathname}` });
}

function send(res, status, out) {
  const text = typeof out === "string" ? out : JSON.stringify(out);
  res.writeHead(status, {
    "content-type": typeof out === "string" ? "text/plain" : "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    if (err instanceof ShopError) return send(res, err.status, { error: err.message, ...err.detail });
    console.error(`error: ${err?.stack ?? err}`);
    send(res, 500, { error: String(err?.message ?? err) });
  });
});
server.keepAliveTimeout = 65_000;
server.on("error", (err) => {
  console.error(`error: ${err.message}`);
  process.exit(1);
});
server.listen(port, host, () => console.log(`shop listening on http://${host}:${port}`));

// SHOP_FINAL_REPORT=FILE: the consistency report is written there on shutdown,
// so the state can still be judged after the process is gone.
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (env.SHOP_FINAL_REPORT) writeFileSync(env.SHOP_FINAL_REPORT, JSON.stringify(store.consistency(), null, 2));
    server.close(() => process.exit(0));
    // Keep-alive connections would hold close() open; the report is written, so go.
    setTimeout(() => process.exit(0), 1000).unref();
  });
}
