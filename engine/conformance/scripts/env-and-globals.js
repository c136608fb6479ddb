// Doc: "Environment variables" (k6 docs, using-k6/environment-variables): __ENV holds the
// variables (system environment variables are passed to `k6 run`); "Execution context
// variables" (k6 docs, using-k6/execution-context-variables): __VU starts from one, __ITER is
// the VU's zero-based iteration number.
// Expect: 2 VUs x 3 iterations, 4 checks each: checks 24 passes, 0 fails.
import { check } from "k6";
import exec from "k6/execution";

export const options = {
  scenarios: { each: { executor: "per-vu-iterations", vus: 2, iterations: 3 } },
};

let iter = 0;

export default function () {
  check(null, {
    "__ENV from the environment": () => __ENV.CONF_GREETING === "hello conformance",
    "__ENV.BASE_URL set": () => typeof __ENV.BASE_URL === "string" && __ENV.BASE_URL.startsWith("http://127.0.0.1:"),
    "__VU is the VU id": () => __VU === exec.vu.idInTest && __VU >= 1 && __VU <= 2,
    "__ITER counts from 0": () => __ITER === iter,
  });
  iter++;
}
