// Doc: "request( method, url, [body], [params] )" (k6 docs, javascript-api/k6-http/request):
// issues a request of any method; the method "Must be uppercase".
// Expect: GET, POST (with body and header) and OPTIONS reach the server once each; 3 checks pass;
// the tagged request counts in http_reqs{via:request}.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1, thresholds: { "http_reqs{via:request}": ["count==3"] } };

export default function () {
  const url = `${__ENV.BASE_URL}/echo`;
  const tags = { via: "request" };
  const get = http.request("GET", url, null, { tags }).json();
  const post = http.request("POST", url, "x=1", { headers: { "X-Test": "yes" }, tags }).json();
  const opt = http.request("OPTIONS", url, null, { tags });
  check(null, {
    "GET via request": () => get.method === "GET",
    "POST via request with header": () => post.method === "POST" && post.body === "x=1" && post.headers["x-test"] === "yes",
    "OPTIONS via request": () => opt.status === 200 && opt.json().method === "OPTIONS",
  });
}
