// The e-commerce app of study 004 (stateful serverless functions) behind the
// study's HTTP API (api.js), in memory, in one process (see store.js). Adds what
// the study lacked: a consistency check after a run (GET /admin/consistency).
import { writeFileSync } from "node:fs";
import { serveShop } from "./api.js";
import { ShopError, keyDistribution, seedSettings, seededRandom } from "./model.js";
import { Store } from "./store.js";

const env = process.env;
const store = new Store({ random: seededRandom(Number(env.SHOP_SEED ?? 42)), ...keyDistribution(env) });
const seed = seedSettings(env);
if (seed.products > 0 || seed.users > 0 || seed.carts > 0) {
  const seeded = store.seed(seed);
  console.log(`shop: seeded ${seeded.products} products, ${seeded.users} users, ${seeded.carts} carts`);
}

/** The API's backend (api.js) over the store. */
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
