// Doc: "Thresholds" (k6 docs, using-k6/thresholds), "Abort a test when a threshold is crossed":
// with abortOnFail "the test run stops as soon as the threshold fails"; delayAbortEval delays
// that evaluation "to let some metric samples to be collected".
// Expect: the threshold is crossed from the first iteration, but the 20s test is aborted only
// after the 1.5s delay (at least ~25 iterations of 50ms ran), well before 20s; exit 99.
import { sleep } from "k6";
import { Counter } from "k6/metrics";

const ticks = new Counter("ticks");

export const options = {
  scenarios: { long: { executor: "constant-vus", vus: 1, duration: "20s" } },
  thresholds: {
    ticks: [{ threshold: "count<1", abortOnFail: true, delayAbortEval: "1500ms" }],
  },
};

export default function () {
  ticks.add(1);
  sleep(0.05);
}
