// Doc: "k6/execution" (k6 docs, javascript-api/k6-execution): scenario.iterationInTest is "the
// unique and zero-based sequential number of the current iteration in the scenario"; vu.idInTest
// is "the globally unique identifier of the VU" (VU ids start at one).
// Expect: 30 iterations over 3 VUs hit /hit/iter/0 ... /hit/iter/29 exactly once each; VU ids
// are 1..3 (vu_ids min 1, max 3).
import http from "k6/http";
import exec from "k6/execution";
import { Trend } from "k6/metrics";

const vuIds = new Trend("vu_ids");

export const options = {
  scenarios: { shared: { executor: "shared-iterations", vus: 3, iterations: 30 } },
};

export default function () {
  vuIds.add(exec.vu.idInTest);
  http.get(`${__ENV.BASE_URL}/hit/iter/${exec.scenario.iterationInTest}`);
}
