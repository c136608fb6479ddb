// Smoke test of the shop on Restate: the same API as ../shop, so the same smoke
// test (a checkout that completes, two that roll back, freq-items, the check).
import { runIfMain } from "../smoke-lib.mjs";
import { smoke } from "../shop/smoke.mjs";

export { smoke };

runIfMain(import.meta.url, smoke);
