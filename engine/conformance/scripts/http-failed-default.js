// Doc: "setResponseCallback( callback )" (k6 docs, javascript-api/k6-http/set-response-callback):
// "By default requests with status codes between 200 and 399 are considered expected";
// http_req_failed ("Metrics reference") is the rate of failed requests.
// Expect: 200, 204, 399 are expected; 400, 404, 503 failed: http_req_failed passes 3, fails 3,
// rate 0.5. "Error Codes": a 4xx/5xx response has error_code 1400+ / 1500+ (1404 for 404);
// 2 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  for (const code of [200, 204, 399, 400, 503]) http.get(`${base}/status/${code}`);
  const notFound = http.get(`${base}/status/404`);
  check(notFound, {
    "status 404": (r) => r.status === 404,
    "error_code 1404": (r) => r.error_code === 1404,
  });
}
