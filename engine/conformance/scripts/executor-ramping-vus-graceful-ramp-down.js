// Doc: "Ramping VUs" (k6 docs, using-k6/scenarios/executors/ramping-vus), gracefulRampDown: "Time to
// wait for an already started iteration to finish before stopping it during a ramp down"; "Graceful
// stop" (k6 docs): gracefulStop does the same at the end of the scenario.
// Expect: 2 VUs start 1.2s iterations; at 0.3s the target drops to 1, so one VU's iteration is
// interrupted after the 0.2s gracefulRampDown; the other VU finishes its first iteration (at 1.2s)
// and its second is cut at the 1.6s end (gracefulStop 0s). started 3, finished 1, iterations 1.
import { sleep } from "k6";
import { Counter } from "k6/metrics";

const started = new Counter("started");
const finished = new Counter("finished");

export const options = {
  scenarios: {
    down: {
      executor: "ramping-vus",
      startVUs: 2,
      stages: [
        { duration: "0.3s", target: 2 },
        { duration: "0.1s", target: 1 },
        { duration: "1.2s", target: 1 },
      ],
      gracefulRampDown: "0.2s",
      gracefulStop: "0s",
    },
  },
};

export default function () {
  started.add(1);
  sleep(1.2);
  finished.add(1);
}
