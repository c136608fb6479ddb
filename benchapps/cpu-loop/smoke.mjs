// Smoke test shared by Taewa, Riwai and Raupi (study 002): the same behaviour in three stacks.
import assert from "node:assert/strict";
import { call, runIfMain } from "../smoke-lib.mjs";

export async function smoke(baseUrl) {
  assert.equal((await call(baseUrl, "GET", "/healthz")).text, "ok");
  for (const n of [0, 1, 20000]) {
    const { text } = await call(baseUrl, "GET", `/?n=${n}`);
    assert.equal(text.length, 44, `GET /?n=${n}: body must be 44 characters, got ${JSON.stringify(text)}`);
    assert.match(text, /^[0-9.e+-]+$/, `GET /?n=${n}: body must be a number, got ${JSON.stringify(text)}`);
  }
  assert.equal((await call(baseUrl, "GET", "/")).text.length, 44);
  await call(baseUrl, "GET", "/?n=abc", { status: 400 });
  await call(baseUrl, "GET", "/?n=-1", { status: 400 });
  await call(baseUrl, "GET", "/nowhere", { status: 404 });
}

runIfMain(import.meta.url, smoke);
