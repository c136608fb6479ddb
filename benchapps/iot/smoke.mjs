// Smoke test of the IoT app (study 000): sign-in, the seed, every endpoint of the
// study, the keys' rules (who may see what), the gateway -> consumer path.
// Needs all endpoints in one process (no FUNCTION). Admin credentials: as the app's
// IOT_ADMIN_USERNAME / IOT_ADMIN_PASSWORD (default admin / admin).
import assert from "node:assert/strict";
import { call, runIfMain } from "../smoke-lib.mjs";

export async function smoke(
  baseUrl,
  { admin = { username: process.env.IOT_ADMIN_USERNAME || "admin", password: process.env.IOT_ADMIN_PASSWORD || "admin" } } = {},
) {
  assert.equal((await call(baseUrl, "GET", "/healthz")).text, "ok");
  const auth = (token) => ({ authorization: `Bearer ${token}` });
  const signin = async (username, password, status = 200) =>
    (await call(baseUrl, "POST", "/api/users/signin", { body: { username, password }, status })).json;

  const root = (await signin(admin.username, admin.password)).token;
  await signin(admin.username, `${admin.password}-wrong`, 401);
  const seeded = (await call(baseUrl, "POST", "/admin/seed", { headers: auth(root) })).json;
  assert.deepEqual([seeded.users, seeded.devices, seeded.sensors], [100, 500, 500], "the seed makes 100 users x 5 devices x 1 sensor");

  const { token, user } = await signin(seeded.sample.user.username, seeded.sample.user.password);
  assert.equal(user.id, seeded.sample.user.id);
  assert.equal((await call(baseUrl, "GET", "/api/users/", { headers: auth(token) })).json.username, "user1");
  assert.ok((await call(baseUrl, "GET", "/api/users/", { headers: auth(root) })).json.length >= 101, "the super user sees every user");
  await call(baseUrl, "GET", "/api/users/", { status: 401 });

  const devices = (await call(baseUrl, "GET", `/api/users/${user.id}/devices`, { headers: auth(token) })).json;
  assert.equal(devices.length, 5);
  await call(baseUrl, "GET", `/api/users/${user.id + 1}/devices`, { headers: auth(token), status: 403 });

  // What the smoke test writes goes to a user of its own, so it can run again.
  const name = `smoke-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
  const mine = (
    await call(baseUrl, "POST", "/api/users/", { headers: auth(root), body: { username: name, password: "smoke-pass" }, status: 201 })
  ).json;
  await call(baseUrl, "POST", "/api/users/", { headers: auth(root), body: { username: name, password: "x" }, status: 409 });
  await call(baseUrl, "POST", "/api/users/", { headers: auth(token), body: { username: `${name}-2`, password: "x" }, status: 403 });
  const own = (await signin(name, "smoke-pass")).token;
  await smokeOwnUser(baseUrl, { auth, uid: mine.id, token: own, seeded });
}

async function smokeOwnUser(baseUrl, { auth, uid, token, seeded }) {
  const user = { id: uid };
  const device = (
    await call(baseUrl, "POST", `/api/users/${user.id}/devices`, { headers: auth(token), body: { name: "smoke-device" }, status: 201 })
  ).json;
  const sensor = (
    await call(baseUrl, "POST", `/api/users/${user.id}/devices/${device.id}/sensors`, {
      headers: auth(token),
      body: { name: "humidity" },
      status: 201,
    })
  ).json;
  assert.deepEqual(
    (await call(baseUrl, "GET", `/api/users/${user.id}/devices/${device.id}/sensors`, { headers: auth(token) })).json.map((s) => s.id),
    [sensor.id],
  );
  await call(baseUrl, "POST", `/api/users/${user.id}/devices/${device.id}/sensors`, { headers: auth(token), body: {}, status: 400 });

  const now = Date.now();
  const batch = [1, 2, 3].map((i) => ({ sensor_id: sensor.id, value: i * 1.5, timestamp: now - (3 - i) * 1000 }));
  assert.equal((await call(baseUrl, "POST", "/api/gateway", { headers: auth(device.key), body: batch })).json.accepted, 3);
  await call(baseUrl, "POST", "/api/gateway", {
    headers: auth(device.key),
    body: [{ sensor_id: seeded.sample.device.sensorId, value: 1 }],
    status: 403,
  });
  await call(baseUrl, "POST", "/api/gateway", { headers: auth(token), body: batch, status: 401 });

  const consumer = (
    await call(baseUrl, "POST", `/api/users/${user.id}/consumers`, {
      headers: auth(token),
      body: { name: "smoke", sensor_ids: [sensor.id] },
      status: 201,
    })
  ).json;
  const consumed = (await call(baseUrl, "GET", `/api/consumers/consume/${sensor.id}`, { headers: auth(consumer.key) })).json;
  assert.deepEqual(
    consumed.values.map((v) => v.value),
    [4.5, 3, 1.5],
    "the newest value first",
  );
  await call(baseUrl, "GET", `/api/consumers/consume/${seeded.sample.device.sensorId}`, { headers: auth(consumer.key), status: 403 });
  const seededValues = (
    await call(baseUrl, "GET", `/api/consumers/consume/${seeded.sample.device.sensorId}`, { headers: auth(seeded.sample.consumer.key) })
  ).json;
  assert.equal(seededValues.values.length, 10);
}

runIfMain(import.meta.url, smoke);
