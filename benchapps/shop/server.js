// Study 004's e-commerce app (stateful serverless functions): its HTTP API
// (appendix A), plus reads and admin, over any backend that holds the shop's
// state. Run directly (`node server.js`) it serves the in-memory store
// (store.js) in one process; ../shop-restate serves it over Restate. Adds what
// the study lacked: a consistency check after a run (GET /admin/consistency).
//
// A backend (every method may be async):
//   createProduct({price, stock}) -> id        updateProduct(id, {price, stock}) -> {id, price, stock}
//   product(id) -> {id, price, stock}          freqItems(id, top, depth) -> [id]
//   createUser({credits}) -> id                user(id) -> {id, credits}
//   addCredits(id, credits) -> {id, credits}   createCart() -> id
//   cart(id) -> {id, items}                    addToCart(cartId, productId, amount) -> {id, items}
//   checkout(cartId, userId) -> {orderId, total, status}   (a ShopError 409 when rolled back)
//   consistency() -> {ok, violations, violationCount, totals}
//   corrupt(productId | undefined, stockDelta) -> {productId, stock}   (tests only)
import http from "node:http";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ShopError, keyDistribution, seedSettings } from "./model.js";
import { Store, seededRandom } from "./store.js";

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

const productInput = (b) => ({ price: int(b.price, "price", { optional: true }), stock: int(b.stock, "stock", { optional: true }) });

/** [method, path pattern, handler(params, body, query)] -> [status, answer]. */
function shopRoutes(backend, { allowCorruption }) {
  return [
    ["POST", "/products", async (_p, b) => [201, { id: await backend.createProduct(productInput(b)) }]],
    ["POST", "/products/:id", async (p, b) => [200, await backend.updateProduct(p.id, productInput(b))]],
    ["GET", "/products/:id", async (p) => [200, await backend.product(p.id)]],
    [
      "GET",
      "/products/:id/freq-items",
      async (p, _b, q) => {
        const top = int(q.has("top") ? Number(q.get("top")) : 3, "top", { min: 1, max: 10 });
        const depth = int(q.has("depth") ? Number(q.get("depth")) : 1, "depth", { min: 1, max: 5 });
        return [200, await backend.freqItems(p.id, top, depth)];
      },
    ],
    [
      "POST",
      "/users",
      async (_p, b) => [201, { id: await backend.createUser({ credits: int(b.credits, "credits", { optional: true }) }) }],
    ],
    ["GET", "/users/:id", async (p) => [200, await backend.user(p.id)]],
    ["PATCH", "/users/:id/credits/add", async (p, b) => [200, await backend.addCredits(p.id, int(b.credits, "credits", { min: 1 }))]],
    ["POST", "/shopping-carts", async () => [201, { id: await backend.createCart() }]],
    ["GET", "/shopping-cart/:id", async (p) => [200, await backend.cart(p.id)]],
    [
      "POST",
      "/shopping-cart/:id/products",
      async (p, b) => [
        200,
        await backend.addToCart(p.id, id(b.productId, "productId"), int(b.amount ?? 1, "amount", { min: 1, max: 1e6 })),
      ],
    ],
    ["POST", "/orders/checkout", async (_p, b) => [200, await backend.checkout(id(b.cartId, "cartId"), id(b.userId, "userId"))]],
    ["GET", "/admin/consistency", async () => [200, await backend.consistency()]],
    // Tests only: breaks the invariant on purpose, to show the check catches it.
    [
      "POST",
      "/admin/corrupt",
      async (_p, b) => {
        if (!allowCorruption)
          throw new ShopError(403, "corruption is disabled (start the shop with SHOP_ALLOW_CORRUPTION=1, in tests only)");
        const productId = b.productId === undefined ? undefined : id(b.productId, "productId");
        return [200, await backend.corrupt(productId, int(b.stockDelta ?? 1, "stockDelta", { min: -1e6, max: 1e6 }))];
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
}

async function handle(routes, req, res) {
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

/**
 * Serves the API on host:port over `backend`. `name` is the app's name in log lines;
 * on SIGTERM or SIGINT, `onStop()` runs (a final report, stopping what the app started)
 * and the process exits.
 */
export function serveShop({ backend, port, host, allowCorruption = false, name = "shop", onStop = async () => {} }) {
  const routes = shopRoutes(backend, { allowCorruption });
  const server = http.createServer((req, res) => {
    handle(routes, req, res).catch((err) => {
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
  server.listen(port, host, () => console.log(`${name} listening on http://${host}:${port}`));

  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      // Keep-alive connections would hold close() open: stop taking requests, then go.
      server.close();
      server.closeIdleConnections();
      Promise.resolve()
        .then(onStop)
        .catch((err) => console.error(`error: while stopping: ${err?.message ?? err}`))
        .finally(() => process.exit(0));
    });
  }
  return server;
}

/** The in-memory shop: the store, seeded from SHOP_SEED_*, behind the API. */
function serveInMemory() {
  const env = process.env;
  const store = new Store({ random: seededRandom(Number(env.SHOP_SEED ?? 42)), ...keyDistribution(env) });
  const seed = seedSettings(env);
  if (seed.products > 0 || seed.users > 0 || seed.carts > 0) {
    const seeded = store.seed(seed);
    console.log(`shop: seeded ${seeded.products} products, ${seeded.users} users, ${seeded.carts} carts`);
  }

  /** The API's backend (see the top of this file) over the store. */
  const backend = {
    createProduct: (input) => store.createProduct(input),
    updateProduct: (id, input) => store.updateProduct(id, input),
    product: (id) => {
      const p = store.product(id);
      return { id, price: p.price, stock: p.stock };
    },
    freqItems: (id, top, depth) => store.freqItems(id, top, depth),
    createUser: (input) => store.createUser(input),
    user: (id) => ({ id, credits: store.user(id).credits }),
    addCredits: (id, credits) => store.addCredits(id, credits),
    createCart: () => store.createCart(),
    cart: (id) => ({ id, items: Object.fromEntries(store.cart(id)) }),
    addToCart: (cartId, productId, amount) => store.addToCart(cartId, productId, amount),
    checkout: (cartId, userId) => store.checkout(cartId, userId),
    consistency: () => store.consistency(),
    corrupt: (rawId, delta) => {
      const productId = rawId ?? store.products.keys().next().value;
      if (productId === undefined) throw new ShopError(404, "no product to corrupt");
      store.product(productId).stock += delta;
      return { productId, stock: store.product(productId).stock };
    },
  };

  serveShop({
    backend,
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? "127.0.0.1",
    allowCorruption: env.SHOP_ALLOW_CORRUPTION === "1",
    // SHOP_FINAL_REPORT=FILE: the consistency report is written there on shutdown,
    // so the state can still be judged after the process is gone.
    onStop: () => {
      if (env.SHOP_FINAL_REPORT) writeFileSync(env.SHOP_FINAL_REPORT, JSON.stringify(store.consistency(), null, 2));
    },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serveInMemory();
