// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Max redirects: "The maximum
// number of HTTP redirects that k6 will follow before giving up on a request".
// Expect: with maxRedirects 1, GET /redirect/3 stops at /redirect/2 (status 302): 2 requests
// reach the server; 1 check passes.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1, maxRedirects: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const res = http.get(`${base}/redirect/3`);
  check(res, { "stopped after one redirect": (r) => r.status === 302 && r.url === `${base}/redirect/2` });
}
