// Study 004's shop on Restate, as one process group: this process starts
// restate-server (a child, on free loopback ports, its data in a fresh
// directory), serves the shop's Restate services (services.js) on an HTTP/2
// endpoint, registers that endpoint with Restate's admin API, seeds the shop
// through Restate, and only then serves the shop's HTTP API on PORT (the facade:
// ../shop/server.js over backend.js). On SIGTERM it stops the endpoint and Restate
// and removes the data directory.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http2 from "node:http2";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { createEndpointHandler } from "@restatedev/restate-sdk";
import { serveShop } from "../shop/server.js";
import { keyDistribution, seedPlan, seedSettings } from "../shop/model.js";
import { keyPicker, seededRandom } from "../shop/store.js";
import { restateBackend } from "./backend.js";
import { shopServices } from "./services.js";

const env = process.env;
const host = "127.0.0.1";
const log = (line) => console.log(`shop-restate: ${line}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, host, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it answers true, or throws after `ms`. */
async function until(what, probe, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await probe()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const [ingressPort, adminPort, fabricPort, endpointPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
const ingressUrl = `http://${host}:${ingressPort}`;
const adminUrl = `http://${host}:${adminPort}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), `shop-restate-${env.OPSBENCH_RUN_ID ?? "manual"}-`));

// restate-server, the platform binary of @restatedev/restate-server (no wrapper process).
const binary = createRequire(import.meta.url).resolve(`@restatedev/restate-server-${os.platform()}-${os.arch()}/bin/restate-server`);
let stopping = false;
const restate = spawn(binary, ["--base-dir", dataDir, "--no-logo", "--node-name", "shop"], {
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    PATH: env.PATH ?? "/usr/bin:/bin",
    HOME: env.HOME ?? "/",
    RESTATE_LISTEN_MODE: "tcp",
    RESTATE_BIND_ADDRESS: `${host}:${fabricPort}`,
    RESTATE_INGRESS__BIND_ADDRESS: `${host}:${ingressPort}`,
    RESTATE_ADMIN__BIND_ADDRESS: `${host}:${adminPort}`,
    RESTATE_ADMIN__DISABLE_WEB_UI: "true",
    RESTATE_DISABLE_TELEMETRY: "true",
    RESTATE_LOG_FILTER: env.SHOP_RESTATE_LOG_FILTER ?? "warn,octocrab=off",
    RESTATE_LOG_DISABLE_ANSI_CODES: "true",
    // Sized for one machine that also runs the load: few partitions, little memory, a quick stop.
    RESTATE_DEFAULT_NUM_PARTITIONS: env.SHOP_RESTATE_PARTITIONS ?? "4",
    RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: env.SHOP_RESTATE_MEMORY ?? "512MiB",
    RESTATE_SHUTDOWN_TIMEOUT: "3s",
  },
});
const restateExited = new Promise((resolve) => restate.once("exit", (code, signal) => resolve({ code, signal })));
restateExited.then(({ code, signal }) => {
  if (stopping) return;
  console.error(`error: restate-server exited (${signal ?? `code ${code}`})`);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});

const endpoint = http2.createServer(createEndpointHandler({ services: shopServices(keyDistribution(env)) }));
await new Promise((resolve, reject) => {
  endpoint.once("error", reject);
  endpoint.listen(endpointPort, host, resolve);
});

async function stop() {
  stopping = true;
  endpoint.close();
  // The group's SIGTERM reached restate-server too; when only this process was signalled, pass it on.
  if (restate.exitCode === null && restate.signalCode === null) restate.kill("SIGTERM");
  const gone = await Promise.race([restateExited.then(() => true), sleep(4000).then(() => false)]);
  if (!gone) restate.kill("SIGKILL");
  await restateExited;
  rmSync(dataDir, { recursive: true, force: true });
}

// A stop while starting: serveShop() takes the signals over once the shop is up.
const early = () => stop().finally(() => process.exit(0));
process.once("SIGTERM", early);
process.once("SIGINT", early);

try {
  await until("restate-server's admin API", async () => (await fetch(`${adminUrl}/health`)).ok);
  const reg = await fetch(`${adminUrl}/deployments`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ uri: `http://${host}:${endpointPort}` }),
  });
  if (!reg.ok) throw new Error(`registering the endpoint with Restate failed: HTTP ${reg.status}: ${await reg.text()}`);
  const backend = restateBackend({ ingressUrl, adminUrl });
  await until(
    "the shop's services on Restate's ingress",
    async () => (await fetch(`${ingressUrl}/shop/main/counts`, { method: "POST" })).ok,
  );

  // The seed data of the in-memory shop (same PRNG, same plan), made through Restate.
  const { distribution, zipfExponent } = keyDistribution(env);
  const random = seededRandom(Number(env.SHOP_SEED ?? 42));
  const plan = seedPlan(seedSettings(env), random, keyPicker(distribution, zipfExponent, random));
  const carts = plan.carts.map((picks) => {
    const items = {};
    for (const i of picks) items[`p${i + 1}`] = (items[`p${i + 1}`] ?? 0) + 1;
    return { items };
  });
  for (const [kind, inputs] of [
    ["products", plan.products],
    ["users", plan.users],
    ["carts", carts],
  ]) {
    for (let i = 0; i < inputs.length; i += 200) await backend.create(kind, inputs.slice(i, i + 200));
  }
  if (plan.products.length || plan.users.length || carts.length)
    log(`seeded ${plan.products.length} products, ${plan.users.length} users, ${carts.length} carts`);

  process.off("SIGTERM", early);
  process.off("SIGINT", early);
  serveShop({
    backend,
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? host,
    allowCorruption: env.SHOP_ALLOW_CORRUPTION === "1",
    name: `shop-restate (Restate ingress ${ingressUrl}, admin ${adminUrl})`,
    onStop: stop,
  });
} catch (err) {
  console.error(`error: ${err.message}`);
  await stop();
  process.exit(1);
}
