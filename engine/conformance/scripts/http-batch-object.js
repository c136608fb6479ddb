// Doc: "batch( requests )" (k6 docs, javascript-api/k6-http/batch): with named requests (an
// object), the result "is an ordinary object with string keys".
// Expect: keys home, api and missing map to their responses; 3 checks pass; http_reqs 3.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const r = http.batch({
    home: `${base}/ok`,
    api: { method: "GET", url: `${base}/json` },
    missing: ["GET", `${base}/status/404`],
  });
  check(r, {
    "home by name": (x) => x.home.status === 200 && x.home.body === "ok",
    "api by name": (x) => x.api.json().count === 3,
    "missing by name": (x) => x.missing.status === 404,
  });
}
