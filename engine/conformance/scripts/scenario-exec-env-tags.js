// Doc: "Scenarios" (k6 docs, using-k6/scenarios), options exec ("Name of exported JS function
// to execute"), env ("Environment variables specific to this scenario") and tags ("Tags
// specific to this scenario").
// Expect: scenario "api" runs apiFlow 2 times with FLOW=api and tag flow=api; scenario "web"
// runs webFlow 3 times with FLOW=web and tag flow=web; the default function never runs.
import { check } from "k6";
import exec from "k6/execution";
import { Counter } from "k6/metrics";

const calls = new Counter("flow_calls");
const defaultCalls = new Counter("default_calls");

export const options = {
  scenarios: {
    api: {
      executor: "per-vu-iterations",
      vus: 1,
      iterations: 2,
      exec: "apiFlow",
      env: { FLOW: "api" },
      tags: { flow: "api" },
    },
    web: {
      executor: "shared-iterations",
      vus: 1,
      iterations: 3,
      exec: "webFlow",
      env: { FLOW: "web" },
      tags: { flow: "web" },
    },
  },
  thresholds: {
    "flow_calls{flow:api}": ["count==2"],
    "flow_calls{flow:web}": ["count==3"],
    "iterations{scenario:api}": ["count==2"],
    "iterations{scenario:web}": ["count==3"],
  },
};

export function apiFlow() {
  calls.add(1);
  check(null, {
    "api sees FLOW=api": () => __ENV.FLOW === "api",
    "api scenario name": () => exec.scenario.name === "api",
  });
}

export function webFlow() {
  calls.add(1);
  check(null, {
    "web sees FLOW=web": () => __ENV.FLOW === "web",
    "web scenario name": () => exec.scenario.name === "web",
  });
}

export default function () {
  defaultCalls.add(1);
}
