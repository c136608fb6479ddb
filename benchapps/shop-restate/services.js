// Study 004's shop as Restate services: products, users, carts and orders are
// virtual objects (one key each, their state kept by Restate, handlers of one key
// run one at a time), "shop" hands out ids, "analytics" answers freq-items. Every
// call between them goes through Restate, journaled: a checkout that fails half
// way is resumed by Restate, so its rollback (the saga) always completes.
import * as restate from "@restatedev/restate-sdk";
import { keyPicker } from "../shop/store.js";

const { TerminalError, RestatePromise } = restate;
const shared = restate.handlers.object.shared;

const notFound = (what, key) => new TerminalError(`no ${what} "${key}"`, { errorCode: 404 });

/** Restate's own randomness (journaled, so a replay picks the same key). */
const journaled = (ctx) => () => ctx.rand.random();

/** A product: {price, stock, supplied} ("supplied" is its stock ledger), and which products were bought with it. */
export const product = restate.object({
  name: "product",
  handlers: {
    create: async (ctx, { price = 0, stock = 0 }) => {
      if (await ctx.get("product")) throw new TerminalError(`product "${ctx.key}" exists`, { errorCode: 409 });
      ctx.set("product", { price, stock, supplied: stock });
      return ctx.key;
    },
    update: async (ctx, { price, stock }) => {
      const p = await ctx.get("product");
      if (!p) throw notFound("product", ctx.key);
      if (price !== undefined) p.price = price;
      // A new stock level is a delivery (or a write-off): the supplied ledger follows it.
      if (stock !== undefined) {
        p.supplied += stock - p.stock;
        p.stock = stock;
      }
      ctx.set("product", p);
      return { id: ctx.key, price: p.price, stock: p.stock };
    },
    get: shared(async (ctx) => {
      const p = await ctx.get("product");
      if (!p) throw notFound("product", ctx.key);
      return { id: ctx.key, price: p.price, stock: p.stock };
    }),
    reserve: async (ctx, { amount }) => {
      const p = await ctx.get("product");
      if (!p || p.stock < amount) return { ok: false, productId: ctx.key, amount };
      p.stock -= amount;
      ctx.set("product", p);
      return { ok: true, productId: ctx.key, amount, price: p.price };
    },
    release: async (ctx, { amount }) => {
      const p = await ctx.get("product");
      p.stock += amount;
      ctx.set("product", p);
    },
    boughtWith: async (ctx, { ids }) => {
      const freq = (await ctx.get("freq")) ?? {};
      for (const other of ids) if (other !== ctx.key) freq[other] = (freq[other] ?? 0) + 1;
      ctx.set("freq", freq);
    },
    /** The top n products bought with this one. */
    top: shared(async (ctx, { top }) => {
      const freq = (await ctx.get("freq")) ?? {};
      return Object.entries(freq)
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
        .slice(0, top)
        .map(([k]) => k);
    }),
    /** Tests only: moves the stock without its ledger, so the consistency check must fail. */
    corrupt: async (ctx, { stockDelta }) => {
      if (process.env.SHOP_ALLOW_CORRUPTION !== "1") throw new TerminalError("corruption is disabled", { errorCode: 403 });
      const p = await ctx.get("product");
      if (!p) throw notFound("product", ctx.key);
      p.stock += stockDelta;
      ctx.set("product", p);
      return { productId: ctx.key, stock: p.stock };
    },
  },
});

/** A user: {credits, given} ("given" is its credits ledger). */
export const user = restate.object({
  name: "user",
  handlers: {
    create: async (ctx, { credits = 0 }) => {
      if (await ctx.get("user")) throw new TerminalError(`user "${ctx.key}" exists`, { errorCode: 409 });
      ctx.set("user", { credits, given: credits });
      return ctx.key;
    },
    get: shared(async (ctx) => {
      const u = await ctx.get("user");
      if (!u) throw notFound("user", ctx.key);
      return { id: ctx.key, credits: u.credits };
    }),
    addCredits: async (ctx, { credits }) => {
      const u = await ctx.get("user");
      if (!u) throw notFound("user", ctx.key);
      u.credits += credits;
      u.given += credits;
      ctx.set("user", u);
      return { id: ctx.key, credits: u.credits };
    },
    /** Takes `amount` credits if the user has them. */
    charge: async (ctx, { amount }) => {
      const u = await ctx.get("user");
      if (!u || u.credits < amount) return { ok: false, credits: u?.credits ?? 0 };
      u.credits -= amount;
      ctx.set("user", u);
      return { ok: true, credits: u.credits };
    },
  },
});

/** A shopping cart: productId -> amount. */
export const cart = restate.object({
  name: "cart",
  handlers: {
    create: async (ctx, { items = {} }) => {
      if (await ctx.get("items")) throw new TerminalError(`shopping cart "${ctx.key}" exists`, { errorCode: 409 });
      ctx.set("items", items);
      return ctx.key;
    },
    get: shared(async (ctx) => {
      const items = await ctx.get("items");
      if (!items) throw notFound("shopping cart", ctx.key);
      return { id: ctx.key, items };
    }),
    add: async (ctx, { productId, amount }) => {
      const items = await ctx.get("items");
      if (!items) throw notFound("shopping cart", ctx.key);
      await ctx.objectClient(product, productId).get(); // 404 when there is no such product
      items[productId] = (items[productId] ?? 0) + amount;
      ctx.set("items", items);
      return { id: ctx.key, items };
    },
  },
});

/** Ids: p1, u1, c1... in order; "random" picks one of them (uniform or Zipf). */
const PREFIX = { products: "p", users: "u", carts: "c" };
const ENTITY = { products: product, users: user, carts: cart };

export const shop = restate.object({
  name: "shop",
  handlers: {
    /** Makes one entity of `kind` per input (in parallel), numbered after the last; returns their ids. */
    create: async (ctx, { kind, inputs }) => {
      const counters = (await ctx.get("counters")) ?? { products: 0, users: 0, carts: 0 };
      const first = counters[kind] + 1;
      const ids = inputs.map((_, i) => `${PREFIX[kind]}${first + i}`);
      await RestatePromise.all(ids.map((id, i) => ctx.objectClient(ENTITY[kind], id).create(inputs[i])));
      // Counted once they exist, so a "random" pick never names one that does not yet.
      ctx.set("counters", { ...counters, [kind]: counters[kind] + inputs.length });
      return ids;
    },
    counts: shared(async (ctx) => (await ctx.get("counters")) ?? { products: 0, users: 0, carts: 0 }),
  },
});

const WHAT = { products: "product", users: "user", carts: "shopping cart" };

/**
 * Resolves each "random" id (`wanted`: kind -> id) to an existing one, with Restate's
 * journaled randomness; one read of the counts serves them all.
 */
async function resolve(ctx, pick, wanted) {
  const kinds = Object.keys(wanted);
  const counts = kinds.some((k) => wanted[k] === "random") ? await ctx.objectClient(shop, "main").counts() : {};
  return kinds.map((kind) => {
    if (wanted[kind] !== "random") return wanted[kind];
    if (!counts[kind]) throw new TerminalError(`no ${WHAT[kind]} to pick from`, { errorCode: 404 });
    return `${PREFIX[kind]}${1 + pick(counts[kind], journaled(ctx))}`;
  });
}

/**
 * Orders, keyed by order id (the facade names each). checkout is study 004's:
 * read the cart, reserve every product in parallel (fan-out, fan-in), charge the
 * user, and release every reservation when a product lacks stock or the user
 * lacks credits. Afterwards each product learns (by one-way message) which
 * products were bought with it.
 */
export function orderObject(pick) {
  return restate.object({
    name: "order",
    handlers: {
      checkout: async (ctx, { cartId: rawCartId, userId: rawUserId }) => {
        if (await ctx.get("order")) throw new TerminalError(`order "${ctx.key}" exists`, { errorCode: 409 });
        const [cartId, userId] = await resolve(ctx, pick, { carts: rawCartId, users: rawUserId });
        // The user must exist; the cart's items are what is ordered (both asked at once).
        const [, cartView] = await RestatePromise.all([ctx.objectClient(user, userId).get(), ctx.objectClient(cart, cartId).get()]);
        const items = Object.entries(cartView.items);
        if (items.length === 0) throw new TerminalError(`shopping cart "${cartId}" is empty`, { errorCode: 409 });
        const orderId = ctx.key;
        const order = { cartId, userId, items, total: 0, status: "pending" };
        ctx.set("order", order);

        const reservations = await RestatePromise.all(
          items.map(([productId, amount]) => ctx.objectClient(product, productId).reserve({ amount })),
        );
        const reserved = reservations.filter((r) => r.ok);
        const rollBack = async (error) => {
          await RestatePromise.all(reserved.map((r) => ctx.objectClient(product, r.productId).release({ amount: r.amount })));
          ctx.set("order", { ...order, status: "rolled-back" });
          return { orderId, cartId, userId, status: "rolled-back", error };
        };
        const short = reservations.filter((r) => !r.ok).map((r) => r.productId);
        if (short.length) return rollBack(`not enough stock of ${short.join(", ")}`);

        const total = reserved.reduce((sum, r) => sum + r.price * r.amount, 0);
        const charged = await ctx.objectClient(user, userId).charge({ amount: total });
        if (!charged.ok) return rollBack(`user "${userId}" has ${charged.credits} credits, the order costs ${total}`);
        ctx.set("order", { ...order, total, status: "completed" });
        const ids = items.map(([id]) => id);
        for (const id of ids) ctx.objectSendClient(product, id).boughtWith({ ids });
        return { orderId, cartId, userId, total, status: "completed" };
      },
    },
  });
}

/**
 * The analytics query: the top n products bought with this one; with depth d > 1
 * each of those is asked the same, in parallel, down to depth d (a level at a
 * time, so the journal's order is the same on a replay). Returns every product
 * collected, once, in the order found.
 */
export function analyticsService(pick) {
  return restate.service({
    name: "analytics",
    handlers: {
      freqItems: async (ctx, { id: rawId, top, depth }) => {
        const [id] = await resolve(ctx, pick, { products: rawId });
        await ctx.objectClient(product, id).get();
        const found = [];
        const seen = new Set();
        let level = [id];
        for (let d = depth; d >= 1 && level.length; d--) {
          const tops = await RestatePromise.all(level.map((pid) => ctx.objectClient(product, pid).top({ top })));
          for (const k of tops.flat()) {
            if (seen.has(k)) continue;
            seen.add(k);
            found.push(k);
          }
          level = tops.flat();
        }
        return found;
      },
    },
  });
}

/** Every service of the shop; `pick` resolves "random" ids (uniform or Zipf). */
export function shopServices({ distribution, zipfExponent }) {
  const pick = keyPicker(distribution, zipfExponent, Math.random);
  return [product, user, cart, shop, orderObject(pick), analyticsService(pick)];
}
