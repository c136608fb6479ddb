// Helpers shared by the benchapps' smoke tests. Each benchapp's smoke.mjs
// exports `smoke(baseUrl)`, which throws (node:assert) when the app misbehaves,
// and runs stand-alone: `node smoke.mjs http://127.0.0.1:8080`.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

/** One request; asserts the status and returns { status, headers, text, json }. */
export async function call(baseUrl, method, path, { body, headers = {}, status = 200 } = {}) {
  const res = await fetch(new URL(path, baseUrl), {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  assert.equal(res.status, status, `${method} ${path}: expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  return { status: res.status, headers: res.headers, text, json };
}

/** Runs `smoke` when the calling module is the entry point: `node smoke.mjs BASE_URL`. */
export function runIfMain(moduleUrl, smoke) {
  if (process.argv[1] !== fileURLToPath(moduleUrl)) return;
  const baseUrl = process.argv[2];
  if (!baseUrl) {
    console.error("usage: node smoke.mjs BASE_URL   (e.g. http://127.0.0.1:8080)");
    process.exit(2);
  }
  smoke(baseUrl).then(
    () => console.log("smoke test passed"),
    (err) => {
      console.error(`smoke test failed: ${err.message}`);
      process.exit(1);
    },
  );
}
