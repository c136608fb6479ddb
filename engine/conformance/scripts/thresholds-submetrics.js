// Doc: "Thresholds" (k6 docs, using-k6/thresholds), "Set thresholds for specific tags":
// "tagged requests create sub-metrics that you can use in thresholds".
// Expect: per-status and per-tag sub-metrics count the matching requests only (3 x 200 of which
// 2 tagged kind=page, 2 x 404), the check sub-metric has 3 passes; all thresholds hold: exit 0.
import http from "k6/http";
import { check } from "k6";

export const options = {
  iterations: 1,
  thresholds: {
    "http_reqs{status:200}": ["count==3"],
    "http_reqs{status:404}": ["count==2"],
    "http_reqs{kind:page}": ["count==2"],
    "http_req_duration{kind:page}": ["max<5000"],
    "checks{check:page is 200}": ["rate==1"],
  },
};

export default function () {
  const base = __ENV.BASE_URL;
  for (let i = 0; i < 2; i++) {
    const res = http.get(`${base}/ok`, { tags: { kind: "page" } });
    check(res, { "page is 200": (r) => r.status === 200 });
  }
  const res = http.get(`${base}/json`);
  check(res, { "page is 200": (r) => r.status === 200 });
  http.get(`${base}/status/404`);
  http.get(`${base}/status/404`);
}
