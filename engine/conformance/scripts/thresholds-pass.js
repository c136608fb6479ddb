// Doc: "Thresholds" (k6 docs, using-k6/thresholds): when every threshold expression holds,
// "k6 considers this test a pass and exits with an exit code 0".
// Expect: exit 0; each threshold reported as not crossed in the summary export.
import http from "k6/http";
import { check } from "k6";

export const options = {
  iterations: 5,
  thresholds: {
    http_req_duration: ["p(95)<5000", "max<10000"],
    http_reqs: ["count==5"],
    http_req_failed: ["rate==0"],
    checks: ["rate==1"],
  },
};

export default function () {
  const res = http.get(`${__ENV.BASE_URL}/ok`);
  check(res, { "status is 200": (r) => r.status === 200 });
}
