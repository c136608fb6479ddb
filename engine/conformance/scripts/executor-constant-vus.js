// Doc: "Constant VUs" (k6 docs, using-k6/scenarios/executors/constant-vus):
// a fixed number of VUs (2) run as many iterations as possible for `duration` (1s).
// Expect: each iteration sleeps 250ms, so about 4 iterations per VU (8 in total, 6..10),
// and VU ids 1..2 only.
import { sleep } from "k6";
import { Trend } from "k6/metrics";
import exec from "k6/execution";

const vuIds = new Trend("vu_ids");

export const options = {
  scenarios: {
    steady: { executor: "constant-vus", vus: 2, duration: "1s" },
  },
};

export default function () {
  vuIds.add(exec.vu.idInTest);
  sleep(0.25);
}
