// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Duration: "together with
// the vus option, it's a shortcut for a single scenario with a constant VUs executor".
// Expect: 2 VUs for 1s, 250ms per iteration: about 8 iterations (6..10), executor constant-vus.
import { check, sleep } from "k6";
import exec from "k6/execution";

export const options = { vus: 2, duration: "1s" };

export default function () {
  check(exec.scenario, {
    "scenario is default": (s) => s.name === "default",
    "executor is constant-vus": (s) => s.executor === "constant-vus",
  });
  sleep(0.25);
}
