// Doc: "Scenarios" (k6 docs, using-k6/scenarios), option startTime: "Time offset since the
// start of the test, at which point this scenario should begin execution".
// Expect: "early" (startTime 0s) iterates before 500ms, "late" (startTime 1s) not before
// 1s of test time; all 2 checks pass.
import { check } from "k6";
import exec from "k6/execution";

export const options = {
  scenarios: {
    early: { executor: "per-vu-iterations", vus: 1, iterations: 1, exec: "early" },
    late: { executor: "per-vu-iterations", vus: 1, iterations: 1, exec: "late", startTime: "1s" },
  },
};

export function early() {
  check(exec.instance.currentTestRunDuration, { "early starts before 500ms": (t) => t < 500 });
}

export function late() {
  check(exec.instance.currentTestRunDuration, { "late starts after 1s": (t) => t >= 1000 });
}
