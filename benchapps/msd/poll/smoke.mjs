// Smoke test of the poll microbenchmark (study 003), against its entry (the client service).
import assert from "node:assert/strict";
import { call, runIfMain } from "../../smoke-lib.mjs";

export async function smoke(baseUrl) {
  assert.equal((await call(baseUrl, "GET", "/healthz")).text, "ok");
  for (const size of [0, 512, 8192]) {
    const { json } = await call(baseUrl, "GET", `/call?size=${size}`);
    assert.equal(json.size, size, "the poll service must receive the whole payload");
    assert.equal(json.reply.length, 8, "the poll service answers a 64-bit (8-byte) payload");
  }
  assert.equal((await call(baseUrl, "GET", "/call?size=16&reply=4096")).json.reply.length, 4096);
  await call(baseUrl, "GET", "/call?size=-5", { status: 400 });
  await call(baseUrl, "GET", "/call?size=abc", { status: 400 });
}

runIfMain(import.meta.url, smoke);
