// Smoke test of the Apache httpd static app (study 002): the page, the health file, and nothing else served.
import assert from "node:assert/strict";
import { call, runIfMain } from "../smoke-lib.mjs";

export async function smoke(baseUrl) {
  assert.equal((await call(baseUrl, "GET", "/healthz")).text, "ok");
  const page = await call(baseUrl, "GET", "/");
  assert.equal(page.status, 200);
  assert.match(page.text, /<h1>It works<\/h1>/);
  assert.equal((await call(baseUrl, "GET", "/index.html")).text, page.text);
  // The app's own files (its config, its start script) are outside the document root.
  await call(baseUrl, "GET", "/run.sh", { status: 404 });
  await call(baseUrl, "GET", "/httpd.conf", { status: 404 });
}

runIfMain(import.meta.url, smoke);
