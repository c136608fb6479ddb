// Doc: "asyncRequest( method, url, [body], [params] )" (k6 docs, javascript-api/k6-http/asyncrequest):
// issues a request asynchronously and returns a Promise of the Response; the default function may
// be async and await it (the doc's own examples).
// Expect: 3 concurrent requests (two 1s delays and a POST) all resolve; the two delays overlap
// (together under 1.9s; one after the other they take at least 2s); 3 checks pass; http_reqs 3.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default async function () {
  const base = __ENV.BASE_URL;
  const t0 = Date.now();
  const [a, b, posted] = await Promise.all([
    http.asyncRequest("GET", `${base}/delay/1000`),
    http.asyncRequest("GET", `${base}/delay/1000`),
    http.asyncRequest("POST", `${base}/echo`, "async-body"),
  ]);
  const took = Date.now() - t0;
  check(null, {
    "both delays resolved": () => a.status === 200 && b.status === 200,
    "POST resolved": () => posted.json().body === "async-body",
    "requests ran concurrently": () => took < 1900,
  });
}
