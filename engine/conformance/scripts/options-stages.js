// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Stages: "shortcut option
// for a single scenario with a ramping VUs executor".
// Expect: executor ramping-vus, every check passes, the run lasts the stages (1s).
import { check, sleep } from "k6";
import exec from "k6/execution";

export const options = {
  stages: [
    { duration: "0.5s", target: 2 },
    { duration: "0.5s", target: 2 },
  ],
};

export default function () {
  check(exec.scenario, { "executor is ramping-vus": (s) => s.executor === "ramping-vus" });
  sleep(0.1);
}
