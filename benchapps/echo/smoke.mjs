// Smoke test shared by the Go and Node echo functions (study 001).
import assert from "node:assert/strict";
import { call, runIfMain } from "../smoke-lib.mjs";

export async function smoke(baseUrl) {
  assert.equal((await call(baseUrl, "GET", "/healthz")).text, "ok");
  assert.equal((await call(baseUrl, "GET", "/?input=opsbench")).text, "Hello, input was: opsbench");
  assert.equal((await call(baseUrl, "GET", "/")).text, "Hello, input was: ");
  assert.equal((await call(baseUrl, "POST", "/", { body: "payload 42" })).text, "Hello, input was: payload 42");
}

runIfMain(import.meta.url, smoke);
