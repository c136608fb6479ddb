// Doc: "Ramping VUs" (k6 docs, using-k6/scenarios/executors/ramping-vus):
// the number of VUs follows `stages` (0 -> 3 in 0.5s, hold 3 for 0.5s, 3 -> 0 in 0.5s).
// Expect: 3 VUs allocated (vus_max), VU ids 1..3 all ran iterations, and the run ends
// after the stages (1.5s) plus a short graceful ramp-down.
import { sleep } from "k6";
import { Trend } from "k6/metrics";
import exec from "k6/execution";

const vuIds = new Trend("vu_ids");

export const options = {
  scenarios: {
    ramp: {
      executor: "ramping-vus",
      startVUs: 0,
      stages: [
        { duration: "0.5s", target: 3 },
        { duration: "0.5s", target: 3 },
        { duration: "0.5s", target: 0 },
      ],
      gracefulRampDown: "0.2s",
    },
  },
};

export default function () {
  vuIds.add(exec.vu.idInTest);
  sleep(0.1);
}
