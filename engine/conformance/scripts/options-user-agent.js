// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), User agent: "the user-agent
// string to use in User-Agent headers ... If you pass an empty string, no User-Agent header is
// sent."
// Expect: the echoed User-Agent is "conformance-agent/2.0"; 1 check passes.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1, userAgent: "conformance-agent/2.0" };

export default function () {
  const echoed = http.get(`${__ENV.BASE_URL}/echo`).json();
  check(echoed.headers, { "user agent from options": (h) => h["user-agent"] === "conformance-agent/2.0" });
}
