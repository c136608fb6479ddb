// Doc: "Test lifecycle" (k6 docs, using-k6/test-lifecycle): setup() runs once before the VU
// stage and its return value is passed (as a fresh copy) to default and teardown; `__VU` is 0
// in setup and teardown ("Execution context variables").
// Expect: the server sees setup once and teardown once, both from VU 0, and teardown gets the
// setup data unchanged although both VUs modified their own copy; 2 iterations; the checks made
// in setup and teardown count too ("You can call the full k6 API in the setup and teardown
// stages"): 6 passes.
import http from "k6/http";
import { check } from "k6";

export const options = {
  scenarios: { each: { executor: "per-vu-iterations", vus: 2, iterations: 1 } },
};

export function setup() {
  http.get(`${__ENV.BASE_URL}/hit/setup/${__VU}`);
  check(__VU, { "setup runs as VU 0": (vu) => vu === 0 });
  return { token: "s3cr3t", list: [1, 2, 3] };
}

export default function (data) {
  check(data, {
    "token from setup": (d) => d.token === "s3cr3t",
    "list from setup": (d) => d.list.length === 3 && d.list[2] === 3,
  });
  data.list.push(99);
}

export function teardown(data) {
  http.get(`${__ENV.BASE_URL}/hit/teardown/${__VU}/${data.token}/${data.list.length}`);
  check(data, { "teardown sees setup data": (d) => d.list.length === 3 });
}
