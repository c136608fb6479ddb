// Doc: "Dropped iterations" (k6 docs, using-k6/scenarios/concepts/dropped-iterations) and
// "Constant arrival rate": when no VU is free (maxVUs reached), an iteration is not started
// and counted in dropped_iterations.
// Expect: 20 starts/s for 1s with one VU busy 400ms per iteration: 3 iterations run (2..3)
// and the rest (about 17) are dropped.
import { sleep } from "k6";

export const options = {
  scenarios: {
    starved: {
      executor: "constant-arrival-rate",
      rate: 20,
      timeUnit: "1s",
      duration: "1s",
      preAllocatedVUs: 1,
      maxVUs: 1,
    },
  },
};

export default function () {
  sleep(0.4);
}
