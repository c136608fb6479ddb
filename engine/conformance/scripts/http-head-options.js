// Doc: "head( url, [params] )" ("Make a HEAD request") and "options( url, [body], [params] )"
// (k6 docs, javascript-api/k6-http).
// Expect: the server sees one HEAD /ok and one OPTIONS /echo; the HEAD response has status 200
// and no body; 2 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const head = http.head(`${base}/ok`);
  const opts = http.options(`${base}/echo`);
  check(null, {
    "HEAD has no body": () => head.status === 200 && !head.body,
    "OPTIONS echoed": () => opts.json().method === "OPTIONS",
  });
}
