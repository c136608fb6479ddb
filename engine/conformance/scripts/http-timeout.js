// Doc: "Params" (k6 docs, javascript-api/k6-http/params), `timeout`: "Maximum time to wait for
// the request to complete"; a number is milliseconds. "Error Codes" (k6 docs,
// javascript-api/error-codes): 1050 "The HTTP request has timed out".
// Expect: requests to a 3s endpoint with timeouts "300ms" and 300 return status 0 and error_code
// 1050 well before 3s; 4 checks pass; no exception (exit 0).
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const url = `${__ENV.BASE_URL}/delay/3000`;
  const t0 = Date.now();
  const a = http.get(url, { timeout: "300ms" });
  const b = http.get(url, { timeout: 300 });
  const elapsed = Date.now() - t0;
  check(null, {
    "string timeout gives status 0": () => a.status === 0,
    "timeout error code 1050": () => a.error_code === 1050 && b.error_code === 1050,
    "numeric timeout in ms": () => b.status === 0,
    "both gave up early": () => elapsed < 2000,
  });
}
