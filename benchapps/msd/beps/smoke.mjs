// Smoke test of BEPS (study 003), against its entry (the load balancer): every
// request type of the study, and a message fanned out to subscribers' feeds.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { call, runIfMain } from "../../smoke-lib.mjs";

export async function smoke(baseUrl) {
  assert.equal((await call(baseUrl, "GET", "/healthz")).text, "ok");
  const tag = randomBytes(3).toString("hex");
  const [alice, bob, carol] = ["alice", "bob", "carol"].map((n) => `${n}-${tag}`);
  const workers = new Set();
  for (const name of [alice, bob, carol]) workers.add((await call(baseUrl, "POST", "/users", { body: { name }, status: 201 })).json.worker);
  const made = await call(baseUrl, "POST", "/users", { body: {}, status: 201 });
  assert.match(made.json.name, /^[0-9a-f]{10}$/, "create_user without a name makes a 10-character one");
  workers.add(made.json.worker);
  assert.ok(workers.size > 1, "the load balancer must spread requests over the workers");
  await call(baseUrl, "POST", "/users", { body: { name: alice }, status: 409 });

  await call(baseUrl, "POST", `/users/${bob}/subscriptions`, { body: { to: alice } });
  await call(baseUrl, "POST", `/users/${carol}/subscriptions`, { body: { to: alice } });
  const text = "m".repeat(280);
  const published = await call(baseUrl, "POST", `/users/${alice}/messages`, { body: { text }, status: 201 });
  assert.equal(published.json.delivered, 2);
  for (const reader of [bob, carol]) {
    const feed = (await call(baseUrl, "GET", `/users/${reader}/feed`)).json;
    assert.deepEqual(feed.at(-1), { id: published.json.id, from: alice, text });
  }
  assert.equal((await call(baseUrl, "DELETE", `/users/${carol}/subscriptions/${alice}`)).json.removed, true);
  assert.equal((await call(baseUrl, "POST", `/users/${alice}/messages`, { body: { text: "again" }, status: 201 })).json.delivered, 1);
  await call(baseUrl, "DELETE", `/users/${bob}`);
  await call(baseUrl, "DELETE", `/users/${bob}`, { status: 404 });
  assert.equal((await call(baseUrl, "POST", `/users/${alice}/messages`, { body: { text: "last" }, status: 201 })).json.delivered, 0);
  await call(baseUrl, "POST", `/users/${alice}/subscriptions`, { body: { to: "nobody-here" }, status: 404 });
  await call(baseUrl, "POST", "/users", { body: { name: "not a name" }, status: 400 });
  await call(baseUrl, "DELETE", `/users/${alice}`);
  await call(baseUrl, "DELETE", `/users/${carol}`);
}

runIfMain(import.meta.url, smoke);
