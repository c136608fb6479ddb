// Doc: "Graceful stop" (k6 docs, using-k6/scenarios/concepts/graceful-stop): gracefulStop is
// "a duration that k6 will wait before forcefully interrupting an iteration".
// Expect: 2 VUs each start one 3s iteration; the 1s duration plus 0.5s gracefulStop
// interrupts both, so `finished` never gets a sample and the run ends well before 3s.
import { sleep } from "k6";
import { Counter } from "k6/metrics";

const started = new Counter("started");
const finished = new Counter("finished");

export const options = {
  scenarios: {
    cut: { executor: "constant-vus", vus: 2, duration: "1s", gracefulStop: "0.5s" },
  },
};

export default function () {
  started.add(1);
  sleep(3);
  finished.add(1);
}
