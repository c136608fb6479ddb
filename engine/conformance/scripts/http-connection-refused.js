// Doc: "Error Codes" (k6 docs, javascript-api/error-codes): 1212 "Dial connection refused - the
// connection was refused by the other party on dial"; "Response" (k6 docs): error holds the
// "non-HTTP error" message. Without the `throw` option a failed request does not throw.
// Expect: status 0, error_code 1212, a non-empty error; the request counts as failed in
// http_req_failed (passes 1); 1 check passes; exit 0.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const res = http.get("http://127.0.0.1:1/nothing-listens-here");
  check(res, {
    refused: (r) => r.status === 0 && r.error_code === 1212 && typeof r.error === "string" && r.error.length > 0,
  });
}
