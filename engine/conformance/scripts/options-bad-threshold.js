// Doc: "Thresholds" (k6 docs, using-k6/thresholds), "Aggregation methods by type": a Counter
// (http_reqs) aggregates only `count` and `rate`, so "avg<100" on it is an invalid threshold.
// Expect: invalid configuration, exit 104, and no request made.
import http from "k6/http";

export const options = {
  iterations: 1,
  thresholds: { http_reqs: ["avg<100"] },
};

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
}
