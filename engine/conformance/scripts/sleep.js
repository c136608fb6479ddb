// Doc: "sleep( t )" (k6 docs, javascript-api/k6/sleep): "Suspends VU execution for the specified
// duration", t in seconds (fractions allowed).
// Expect: sleep(0.3) takes 300ms (290..1000 by the wall clock) in each of 2 iterations; the
// iteration_duration trend has min >= 290ms; 1 check per iteration passes.
import { check, sleep } from "k6";

export const options = { iterations: 2 };

export default function () {
  const t0 = Date.now();
  sleep(0.3);
  const took = Date.now() - t0;
  check(took, { "slept about 300ms": (ms) => ms >= 290 && ms < 1000 });
}
