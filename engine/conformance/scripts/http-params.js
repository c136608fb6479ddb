// Doc: "Params" (k6 docs, javascript-api/k6-http/params): `headers` are added to the request
// and `tags` are added to the request's metrics ("allowing the user to filter out those results").
// Expect: the custom header and user agent reach the server; the 2 requests tagged api=one
// count 2 in http_reqs{api:one}, the untagged one is not in it; 2 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1, thresholds: { "http_reqs{api:one}": ["count==2"] } };

export default function () {
  const base = __ENV.BASE_URL;
  const params = { headers: { "X-My-Header": "k6test", "User-Agent": "conformance/1" }, tags: { api: "one" } };
  const echoed = http.get(`${base}/echo`, params).json();
  http.get(`${base}/ok`, { tags: { api: "one" } });
  http.get(`${base}/ok`);
  check(echoed.headers, {
    "custom header sent": (h) => h["x-my-header"] === "k6test",
    "user agent overridden": (h) => h["user-agent"] === "conformance/1",
  });
}
