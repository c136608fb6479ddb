// The shop API's backend (../shop/server.js) over Restate: each request becomes one
// call to Restate's ingress (POST /<service>/<key>/<handler>), and the
// consistency check reads the entities' state from Restate's own storage with its
// admin SQL query. It holds no state: everything it answers comes from Restate.
import { randomUUID } from "node:crypto";
import { ShopError, consistencyReport } from "../shop/model.js";

async function post(url, input, headers = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(input ?? {}),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = JSON.parse(text).message ?? text;
    } catch {
      /* not JSON: the text as it is */
    }
    throw new ShopError(res.status, message);
  }
  return text ? JSON.parse(text) : undefined;
}

/** Rows of Restate's admin SQL (DataFusion over its storage), as objects. */
export async function adminQuery(adminUrl, query) {
  return (await post(`${adminUrl}/query`, { query }, { accept: "application/json" })).rows;
}

/** What the shop's state in Restate is, read as stored: "product", "user" and "order" objects. */
async function storedState(adminUrl) {
  const rows = await adminQuery(
    adminUrl,
    "SELECT service_name, service_key, key, value_utf8 FROM state WHERE (service_name = 'product' AND key = 'product') OR (service_name = 'user' AND key = 'user') OR (service_name = 'order' AND key = 'order')",
  );
  const of = { product: new Map(), user: new Map(), order: new Map() };
  for (const r of rows) of[r.service_name].set(r.service_key, JSON.parse(r.value_utf8));
  // Ordered as created (p2 before p10), so a report lists violations as the in-memory shop does.
  const byNumber = (m) => [...m].sort((a, b) => a[0].localeCompare(b[0], "en", { numeric: true }));
  return { products: byNumber(of.product), users: byNumber(of.user), orders: [...of.order] };
}

export function restateBackend({ ingressUrl, adminUrl }) {
  const call = (service, key, handler, input) => post(`${ingressUrl}/${service}/${encodeURIComponent(key)}/${handler}`, input);
  const create = async (kind, input) => (await call("shop", "main", "create", { kind, inputs: [input] }))[0];
  return {
    create: (kind, inputs) => call("shop", "main", "create", { kind, inputs }),
    createProduct: (input) => create("products", input),
    updateProduct: (id, input) => call("product", id, "update", input),
    product: (id) => call("product", id, "get"),
    freqItems: (id, top, depth) => post(`${ingressUrl}/analytics/freqItems`, { id, top, depth }),
    createUser: (input) => create("users", input),
    user: (id) => call("user", id, "get"),
    addCredits: (id, credits) => call("user", id, "addCredits", { credits }),
    createCart: () => create("carts", {}),
    cart: (id) => call("cart", id, "get"),
    addToCart: (cartId, productId, amount) => call("cart", cartId, "add", { productId, amount }),
    checkout: async (cartId, userId) => {
      const order = await call("order", `o-${randomUUID()}`, "checkout", { cartId, userId });
      if (order.status === "rolled-back") throw new ShopError(409, order.error, { orderId: order.orderId, status: order.status });
      return order;
    },
    consistency: async () => consistencyReport(await storedState(adminUrl)),
    corrupt: (productId, stockDelta) => call("product", productId ?? "p1", "corrupt", { stockDelta }),
  };
}
