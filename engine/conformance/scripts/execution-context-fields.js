// Doc: "k6/execution" (k6 docs, javascript-api/k6-execution): scenario.name, scenario.executor,
// scenario.startTime (Unix ms), scenario.progress (0..1), vu.iterationInScenario, vu.idInInstance,
// instance.vusInitialized, test.options (consolidated options).
// Expect: 1 VU x 3 iterations of scenario "fields", 8 checks each: checks 24 passes, 0 fails.
import { check } from "k6";
import exec from "k6/execution";

export const options = {
  scenarios: { fields: { executor: "per-vu-iterations", vus: 1, iterations: 3 } },
};

let expectedIteration = 0;

export default function () {
  check(exec, {
    "scenario name": (e) => e.scenario.name === "fields",
    "scenario executor": (e) => e.scenario.executor === "per-vu-iterations",
    "scenario start time is a recent Unix ms": (e) => Math.abs(Date.now() - e.scenario.startTime) < 60000,
    "progress within 0..1": (e) => e.scenario.progress >= 0 && e.scenario.progress <= 1,
    "iteration in scenario counts up": (e) => e.vu.iterationInScenario === expectedIteration,
    "VU id in instance": (e) => e.vu.idInInstance === 1,
    "VUs initialized": (e) => e.instance.vusInitialized >= 1,
    "test options": (e) => e.test.options.scenarios.fields.executor === "per-vu-iterations",
  });
  expectedIteration++;
}
