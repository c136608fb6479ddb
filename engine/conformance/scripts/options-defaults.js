// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference): VUs default 1,
// Iterations default 1 (with no duration, stages or scenarios).
// Expect: exactly one iteration by VU 1 (one GET /ok at the server).
import http from "k6/http";

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
}
