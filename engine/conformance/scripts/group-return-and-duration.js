// Doc: "group( name, fn )" (k6 docs, javascript-api/k6/group): returns "the return value of fn";
// "Metrics reference" (k6 docs, using-k6/metrics/reference): group_duration is the time to run a
// group; "Thresholds" (k6 docs), "Threshold on group duration": 'group_duration{group:::name}'.
// Expect: the group returns 42 (1 check passes); its duration sub-metric has min >= 190ms (a 200ms
// sleep inside) and the request in the nested group is tagged group "::outer::inner" ("Tags and
// Groups"); thresholds hold.
import http from "k6/http";
import { check, group, sleep } from "k6";

export const options = {
  iterations: 1,
  thresholds: {
    "group_duration{group:::outer}": ["min>=190"],
    "group_duration{group:::outer::inner}": ["max<5000"],
    "http_reqs{group:::outer::inner}": ["count==1"],
  },
};

export default function () {
  const result = group("outer", () => {
    sleep(0.2);
    return group("inner", () => {
      http.get(`${__ENV.BASE_URL}/ok`);
      return 42;
    });
  });
  check(result, { "group returns fn's value": (r) => r === 42 });
}
