// Doc: "Shared iterations" (k6 docs, using-k6/scenarios/executors/shared-iterations), maxDuration:
// "Maximum scenario duration before it's forcibly stopped (excluding gracefulStop)"; "Dropped
// iterations" (k6 docs, using-k6/scenarios/concepts/dropped-iterations): "iterations drop if the
// scenario reaches its maxDuration before all iterations finish".
// Expect: 1 VU, 100 iterations of 300ms, maxDuration 1s: iterations start at 0, .3, .6, .9s (the
// last finishes within gracefulStop), about 4 complete (3..5) and the rest (95..97) are dropped.
import { sleep } from "k6";

export const options = {
  scenarios: {
    capped: { executor: "shared-iterations", vus: 1, iterations: 100, maxDuration: "1s", gracefulStop: "1s" },
  },
};

export default function () {
  sleep(0.3);
}
