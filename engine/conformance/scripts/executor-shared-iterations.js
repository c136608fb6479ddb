// Doc: "Shared iterations" (k6 docs, using-k6/scenarios/executors/shared-iterations):
// a fixed number of iterations (12) is shared between the scenario's VUs (3).
// Expect: 12 iterations and 12 requests in total, VU ids within 1..3, every check passes.
import http from "k6/http";
import { check } from "k6";
import exec from "k6/execution";
import { Trend } from "k6/metrics";

const vuIds = new Trend("vu_ids");

export const options = {
  scenarios: {
    shared: { executor: "shared-iterations", vus: 3, iterations: 12, maxDuration: "10s" },
  },
};

export default function () {
  vuIds.add(exec.vu.idInTest);
  http.get(`${__ENV.BASE_URL}/ok`);
  check(exec.scenario, {
    "executor is shared-iterations": (s) => s.executor === "shared-iterations",
    "scenario name is shared": (s) => s.name === "shared",
  });
}
