// The e-commerce entities of study 004, in memory: products {price, stock,
// frequently-bought-together}, users {credits}, shopping carts, orders. Each
// entity operation is one synchronous step after an asynchronous hop (a message
// to a stateful function), so concurrent checkouts interleave between entities
// but never inside one, as with actors.
//
// Two ledgers are kept apart so the consistency check can compare them: what
// each product was supplied with and what each user was given (per entity), and
// what was sold and spent (per completed order).

import { ShopError, consistencyReport, seedPlan } from "./model.js";

const hop = () => new Promise((resolve) => setImmediate(resolve));

/** mulberry32: a seeded PRNG, so a seeded store is the same on every start. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Picks an index in [0, n): uniform, or Zipf with exponent s (study 004 used 1.25).
 * `pick(n, rnd)` may be given another source of randomness than `random` (Restate's
 * handlers pass their journaled one).
 */
export function keyPicker(distribution, s, random) {
  if (distribution === "uniform") return (n, rnd = random) => Math.floor(rnd() * n);
  let cdf = [];
  return (n, rnd = random) => {
    if (cdf.length !== n) {
      // Rebuilt only when the number of keys changed.
      cdf = new Array(n);
      let sum = 0;
      for (let k = 0; k < n; k++) cdf[k] = sum += 1 / (k + 1) ** s;
      for (let k = 0; k < n; k++) cdf[k] /= sum;
    }
    const u = rnd();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export class Store {
  constructor({ random = Math.random, distribution = "uniform", zipfExponent = 1.25 } = {}) {
    this.products = new Map(); // id -> { price, stock, supplied, freq: Map<id, count> }
    this.users = new Map(); // id -> { credits, given }
    this.carts = new Map(); // id -> Map<productId, amount>
    this.orders = new Map(); // id -> { cartId, userId, items: [[productId, amount]], total, status }
    this.counters = { products: 0, users: 0, carts: 0, orders: 0 };
    this.keyCache = new WeakMap();
    this.random = random;
    this.pick = keyPicker(distribution, zipfExponent, random);
  }

  nextId(kind) {
    return `${kind[0]}${++this.counters[kind]}`;
  }

  product(id) {
    const p = this.products.get(id);
    if (!p) throw new ShopError(404, `no product "${id}"`);
    return p;
  }

  user(id) {
    const u = this.users.get(id);
    if (!u) throw new ShopError(404, `no user "${id}"`);
    return u;
  }

  cart(id) {
    const c = this.carts.get(id);
    if (!c) throw new ShopError(404, `no shopping cart "${id}"`);
    return c;
  }

  /** "random" picks an existing key (uniform or Zipf), for loads whose requests are fixed. */
  resolve(map, id, what) {
    if (id !== "random") return id;
    if (map.size === 0) throw new ShopError(404, `no ${what} to pick from`);
    // Entities are never deleted, so a cached key list is current while the size holds.
    let keys = this.keyCache.get(map);
    if (!keys || keys.length !== map.size) {
      keys = [...map.keys()];
      this.keyCache.set(map, keys);
    }
    return keys[this.pick(keys.length)];
  }

  createProduct({ price = 0, stock = 0 }) {
    const id = this.nextId("products");
    this.products.set(id, { price, stock, supplied: stock, freq: new Map() });
    return id;
  }

  updateProduct(id, { price, stock }) {
    const p = this.product(id);
    if (price !== undefined) p.price = price;
    // A new stock level is a delivery (or a write-off): the supplied ledger follows it.
    if (stock !== undefined) {
      p.supplied += stock - p.stock;
      p.stock = stock;
    }
    return { id, price: p.price, stock: p.stock };
  }

  createUser({ credits = 0 }) {
    const id = this.nextId("users");
    this.users.set(id, { credits, given: credits });
    return id;
  }

  addCredits(id, credits) {
    const u = this.user(id);
    u.credits += credits;
    u.given += credits;
    return { id, credits: u.credits };
  }

  createCart() {
    const id = this.nextId("carts");
    this.carts.set(id, new Map());
    return id;
  }

  addToCart(cartId, productId, amount) {
    const cart = this.cart(cartId);
    this.product(productId);
    cart.set(productId, (cart.get(productId) ?? 0) + amount);
    return { id: cartId, items: Object.fromEntries(cart) };
  }

  /**
   * Study 004's checkout: read the cart, reserve every product in parallel (fan-out,
   * fan-in), charge the user, and roll every reservation back when a product lacks
   * stock or the user lacks credits. Afterwards, in the background, each product
   * learns which products were bought with it.
   */
  async checkout(rawCartId, rawUserId) {
    const cartId = this.resolve(this.carts, rawCartId, "shopping cart");
    const userId = this.resolve(this.users, rawUserId, "user");
    this.user(userId);
    await hop();
    const items = [...this.cart(cartId)];
    if (items.length === 0) throw new ShopError(409, `shopping cart "${cartId}" is empty`);
    const orderId = this.nextId("orders");
    const order = { cartId, userId, items, total: 0, status: "pending" };
    this.orders.set(orderId, order);

    const reservations = await Promise.all(items.map(([productId, amount]) => this.reserve(productId, amount)));
    const reserved = reservations.filter((r) => r.ok);
    const fail = async (reason) => {
      await Promise.all(reserved.map((r) => this.release(r.productId, r.amount)));
      order.status = "rolled-back";
      throw new ShopError(409, reason, { orderId, status: order.status });
    };
    const short = reservations.filter((r) => !r.ok).map((r) => r.productId);
    if (short.length) return fail(`not enough stock of ${short.join(", ")}`);

    const total = reserved.reduce((sum, r) => sum + r.price * r.amount, 0);
    await hop();
    const user = this.user(userId);
    if (user.credits < total) return fail(`user "${userId}" has ${user.credits} credits, the order costs ${total}`);
    user.credits -= total;
    order.total = total;
    order.status = "completed";
    setImmediate(() => this.recordBoughtTogether(items.map(([id]) => id)));
    return { orderId, cartId, userId, total, status: order.status };
  }

  async reserve(productId, amount) {
    await hop();
    const p = this.products.get(productId);
    if (!p || p.stock < amount) return { ok: false, productId, amount };
    p.stock -= amount;
    return { ok: true, productId, amount, price: p.price };
  }

  async release(productId, amount) {
    await hop();
    this.products.get(productId).stock += amount;
  }

  recordBoughtTogether(ids) {
    for (const a of ids) {
      const p = this.products.get(a);
      if (!p) continue;
      for (const b of ids) if (b !== a) p.freq.set(b, (p.freq.get(b) ?? 0) + 1);
    }
  }

  /**
   * The analytics query: the top n products bought with this one; with depth d > 1
   * each of those is asked the same, in parallel, down to depth d. Returns every
   * product collected, once, in the order found.
   */
  async freqItems(rawId, top, depth) {
    const id = this.resolve(this.products, rawId, "product");
    this.product(id);
    const found = [];
    const seen = new Set();
    const visit = async (pid, d) => {
      await hop();
      const p = this.products.get(pid);
      const best = [...p.freq]
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
        .slice(0, top)
        .map(([k]) => k);
      for (const k of best) {
        if (seen.has(k)) continue;
        seen.add(k);
        found.push(k);
      }
      if (d > 1) await Promise.all(best.map((k) => visit(k, d - 1)));
    };
    await visit(id, depth);
    return found;
  }

  /** The consistency check (model.js), on the entities and orders in memory. */
  consistency() {
    return consistencyReport({ products: this.products, users: this.users, orders: this.orders });
  }

  /** Seeds products, users and carts of 2..8 random products (model.js seedPlan), from the store's PRNG. */
  seed(settings) {
    const plan = seedPlan(settings, this.random, this.pick);
    const productIds = plan.products.map((p) => this.createProduct(p));
    for (const u of plan.users) this.createUser(u);
    for (const picks of plan.carts) {
      const cartId = this.createCart();
      for (const i of picks) this.addToCart(cartId, productIds[i], 1);
    }
    return { products: this.products.size, users: this.users.size, carts: this.carts.size };
  }
}
