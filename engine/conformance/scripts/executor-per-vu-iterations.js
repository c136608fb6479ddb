// Doc: "Per VU iterations" (k6 docs, using-k6/scenarios/executors/per-vu-iterations):
// each VU executes exactly `iterations` iterations.
// Expect: 3 VUs x 4 iterations = 12 iterations; the counter tagged with the VU id counts 4 per VU.
import { Counter } from "k6/metrics";
import exec from "k6/execution";

const perVu = new Counter("per_vu_iterations");

export const options = {
  scenarios: {
    each: { executor: "per-vu-iterations", vus: 3, iterations: 4 },
  },
  thresholds: {
    "per_vu_iterations{vu_id:1}": ["count==4"],
    "per_vu_iterations{vu_id:2}": ["count==4"],
    "per_vu_iterations{vu_id:3}": ["count==4"],
  },
};

export default function () {
  perVu.add(1, { vu_id: String(exec.vu.idInTest) });
}
