// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), No cookies reset: by default
// k6 resets "the cookie jar after each VU iteration".
// Expect: one VU, 2 iterations; iteration 0 receives a cookie and sees it sent back; iteration 1
// starts with an empty jar; 2 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { vus: 1, iterations: 2 };

export default function () {
  const base = __ENV.BASE_URL;
  if (__ITER === 0) {
    http.get(`${base}/cookies/set?session=abc`);
    check(http.get(`${base}/cookies`).json().cookies, { "cookie kept within iteration": (c) => c.session === "abc" });
  } else {
    check(http.get(`${base}/cookies`).json().cookies, { "jar reset between iterations": (c) => c.session === undefined });
  }
}
