// Doc: "fail( [err] )" (k6 docs, javascript-api/k6/fail): "Immediately throw an error, aborting
// the current iteration. fail() does not abort the test, nor does it make the test exit with
// non-0 status." A thrown exception likewise ends only its iteration.
// Expect: 6 iterations all start (started 6); iterations 1 and 3 call fail(), iteration 5 throws;
// only 3 reach the end (reached_end 3); exit 0; stderr names the messages.
import exec from "k6/execution";
import { fail } from "k6";
import { Counter } from "k6/metrics";

const started = new Counter("started");
const reachedEnd = new Counter("reached_end");

export const options = { vus: 1, iterations: 6 };

export default function () {
  started.add(1);
  const i = exec.scenario.iterationInTest;
  if (i === 1 || i === 3) fail(`conformance fail ${i}`);
  if (i === 5) throw new Error("conformance exception");
  reachedEnd.add(1);
}
