// What every implementation of study 004's shop shares, whatever holds its state
// (store.js in memory, ../shop-restate in Restate): the error an API answer is
// made from, the settings, the seed data, and the consistency rules the check
// after a run applies. (The seeded PRNG and the key picker are store.js's.)

export class ShopError extends Error {
  constructor(status, message, detail = {}) {
    super(message);
    this.status = status;
    this.detail = detail;
  }
}

/** The key distribution of `random` ids, from SHOP_KEY_DISTRIBUTION; exits the process on a bad value. */
export function keyDistribution(env) {
  const distribution = env.SHOP_KEY_DISTRIBUTION ?? "uniform";
  if (!["uniform", "zipf"].includes(distribution)) {
    console.error(`error: SHOP_KEY_DISTRIBUTION must be "uniform" or "zipf", not "${distribution}"`);
    process.exit(2);
  }
  return { distribution, zipfExponent: Number(env.SHOP_ZIPF_EXPONENT ?? 1.25) };
}

/** What SHOP_SEED_* ask to be made at start. */
export function seedSettings(env) {
  return {
    products: Number(env.SHOP_SEED_PRODUCTS ?? 0),
    users: Number(env.SHOP_SEED_USERS ?? 0),
    carts: Number(env.SHOP_SEED_CARTS ?? 0),
    stock: Number(env.SHOP_SEED_STOCK ?? 100),
    credits: Number(env.SHOP_SEED_CREDITS ?? 1000),
  };
}

/**
 * The seed data (the study pre-created 5,000 products): products priced 1..maxPrice,
 * users with credits, and carts of 2..8 random products, as indexes into `products`.
 * Drawn from `random` in a fixed order, so one seed gives one shop.
 */
export function seedPlan({ products = 0, users = 0, carts = 0, stock = 100, credits = 1000, maxPrice = 100 }, random, pick) {
  const plan = { products: [], users: [], carts: [] };
  for (let i = 0; i < products; i++) plan.products.push({ price: 1 + Math.floor(random() * maxPrice), stock });
  for (let i = 0; i < users; i++) plan.users.push({ credits });
  for (let i = 0; i < carts && products > 0; i++) {
    const size = 2 + Math.floor(random() * 7);
    const picks = [];
    for (let k = 0; k < size; k++) picks.push(pick(products));
    plan.carts.push(picks);
  }
  return plan;
}

/**
 * The check study 004 lacked: for every product, stock + sold = supplied (sold
 * counted from completed orders, not from the product); for every user, credits =
 * given - spent (spent counted from completed orders); nothing negative; no
 * checkout left half-done.
 *   products: iterable of [id, {stock, supplied}]; users: [id, {credits, given}];
 *   orders: [orderId, {status, items: [[productId, amount]], userId, total}].
 */
export function consistencyReport({ products, users, orders }) {
  const sold = new Map();
  const spent = new Map();
  const violations = [];
  const count = { products: 0, users: 0, orders: 0, completed: 0, rolledBack: 0 };
  for (const [orderId, o] of orders) {
    count.orders++;
    if (o.status === "pending") violations.push({ kind: "order-pending", orderId });
    if (o.status === "rolled-back") count.rolledBack++;
    if (o.status !== "completed") continue;
    count.completed++;
    for (const [pid, amount] of o.items) sold.set(pid, (sold.get(pid) ?? 0) + amount);
    spent.set(o.userId, (spent.get(o.userId) ?? 0) + o.total);
  }
  for (const [id, p] of products) {
    count.products++;
    const s = sold.get(id) ?? 0;
    if (p.stock + s !== p.supplied) violations.push({ kind: "stock", productId: id, stock: p.stock, sold: s, initial: p.supplied });
    if (p.stock < 0) violations.push({ kind: "negative-stock", productId: id, stock: p.stock });
  }
  for (const [id, u] of users) {
    count.users++;
    const s = spent.get(id) ?? 0;
    if (u.credits !== u.given - s) violations.push({ kind: "credits", userId: id, credits: u.credits, given: u.given, spent: s });
    if (u.credits < 0) violations.push({ kind: "negative-credits", userId: id, credits: u.credits });
  }
  const totals = {
    products: count.products,
    users: count.users,
    orders: count.orders,
    // Every checkout that got past its cart makes an order.
    checkouts: count.orders,
    completed: count.completed,
    rolledBack: count.rolledBack,
    sold: [...sold.values()].reduce((a, b) => a + b, 0),
    spent: [...spent.values()].reduce((a, b) => a + b, 0),
  };
  return { ok: violations.length === 0, violations: violations.slice(0, 100), violationCount: violations.length, totals };
}
