// Doc: "Graceful stop" (k6 docs, using-k6/scenarios/concepts/graceful-stop): iterations still
// running when the duration ends may finish within gracefulStop; no new one starts.
// Expect: one VU starts one 1.3s iteration in a 1s scenario with a 2s gracefulStop: it
// completes (finished == 1, iterations == 1) and no second iteration starts.
import { sleep } from "k6";
import { Counter } from "k6/metrics";

const started = new Counter("started");
const finished = new Counter("finished");

export const options = {
  scenarios: {
    grace: { executor: "constant-vus", vus: 1, duration: "1s", gracefulStop: "2s" },
  },
};

export default function () {
  started.add(1);
  sleep(1.3);
  finished.add(1);
}
