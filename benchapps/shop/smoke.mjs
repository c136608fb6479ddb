// Smoke test of the shop (study 004; ../shop-restate runs it too): the study's API, a checkout that completes,
// two that roll back (stock, credits), the analytics query, and the consistency check.
import assert from "node:assert/strict";
import { call, runIfMain } from "../smoke-lib.mjs";

export async function smoke(baseUrl) {
  assert.equal((await call(baseUrl, "GET", "/healthz")).text, "ok");
  const product = async (price, stock) => (await call(baseUrl, "POST", "/products", { body: { price, stock }, status: 201 })).json.id;
  const [a, b, c] = [await product(10, 5), await product(20, 5), await product(5, 1)];
  const user = (await call(baseUrl, "POST", "/users", { body: { credits: 50 }, status: 201 })).json.id;
  assert.equal((await call(baseUrl, "PATCH", `/users/${user}/credits/add`, { body: { credits: 50 } })).json.credits, 100);
  const cart = async (items) => {
    const id = (await call(baseUrl, "POST", "/shopping-carts", { status: 201 })).json.id;
    for (const [productId, amount] of items) await call(baseUrl, "POST", `/shopping-cart/${id}/products`, { body: { productId, amount } });
    return id;
  };

  const ok = await call(baseUrl, "POST", "/orders/checkout", {
    body: {
      cartId: await cart([
        [a, 2],
        [b, 1],
        [c, 1],
      ]),
      userId: user,
    },
  });
  assert.equal(ok.json.status, "completed");
  assert.equal(ok.json.total, 2 * 10 + 20 + 5);
  assert.equal((await call(baseUrl, "GET", `/users/${user}`)).json.credits, 55);

  // Product c is sold out: the whole order rolls back, a and b get their stock back.
  const noStock = await call(baseUrl, "POST", "/orders/checkout", {
    body: {
      cartId: await cart([
        [a, 1],
        [c, 1],
      ]),
      userId: user,
    },
    status: 409,
  });
  assert.equal(noStock.json.status, "rolled-back");
  assert.equal((await call(baseUrl, "GET", `/products/${a}`)).json.stock, 3);
  // 3 x b costs 60 > 55 credits: rolled back too.
  await call(baseUrl, "POST", "/orders/checkout", { body: { cartId: await cart([[b, 3]]), userId: user }, status: 409 });
  assert.equal((await call(baseUrl, "GET", `/products/${b}`)).json.stock, 4);
  assert.equal((await call(baseUrl, "GET", `/users/${user}`)).json.credits, 55);

  // Bought-together is recorded in the background (a one-way message): ask again for up to 5 s.
  let freq = [];
  for (let i = 0; i < 100 && !(freq.includes(b) && freq.includes(c)); i++) {
    if (i) await new Promise((r) => setTimeout(r, 50));
    freq = (await call(baseUrl, "GET", `/products/${a}/freq-items?top=2&depth=2`)).json;
  }
  assert.ok(freq.includes(b) && freq.includes(c), `freq-items of ${a} must hold ${b} and ${c}: ${JSON.stringify(freq)}`);
  await call(baseUrl, "GET", `/products/${a}/freq-items?top=0`, { status: 400 });
  await call(baseUrl, "POST", "/products", { body: { price: -1 }, status: 400 });
  await call(baseUrl, "POST", "/orders/checkout", { body: { cartId: "nope", userId: user }, status: 404 });

  const check = (await call(baseUrl, "GET", "/admin/consistency")).json;
  assert.equal(check.ok, true, `consistency violations: ${JSON.stringify(check.violations)}`);
  assert.ok(check.totals.completed >= 1 && check.totals.rolledBack >= 2);
}

runIfMain(import.meta.url, smoke);
