// Doc: "k6/execution" (k6 docs, javascript-api/k6-execution), instance: iterationsCompleted ("The
// number of completed iterations in the current instance"), iterationsInterrupted, vusActive
// ("The number of active VUs"), vusInitialized.
// Expect: 1 VU, 3 iterations; at the start of iteration i, i iterations are completed, none
// interrupted, 1 VU active and initialized: 9 checks pass.
import { check } from "k6";
import exec from "k6/execution";

export const options = { vus: 1, iterations: 3 };

export default function () {
  check(exec.instance, {
    "completed so far": (inst) => inst.iterationsCompleted === __ITER,
    "none interrupted": (inst) => inst.iterationsInterrupted === 0,
    "one VU active and initialized": (inst) => inst.vusActive === 1 && inst.vusInitialized === 1,
  });
}
