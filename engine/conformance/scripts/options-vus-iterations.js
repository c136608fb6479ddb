// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Iterations: "together
// with the vus option, it's a shortcut for a single scenario with a shared iterations executor".
// Expect: 6 iterations shared by 2 VUs, in the scenario named "default".
import { check } from "k6";
import exec from "k6/execution";

export const options = { vus: 2, iterations: 6 };

export default function () {
  check(exec.scenario, {
    "scenario is default": (s) => s.name === "default",
    "executor is shared-iterations": (s) => s.executor === "shared-iterations",
  });
}
