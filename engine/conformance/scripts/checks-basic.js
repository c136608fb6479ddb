// Doc: "check( val, sets, [tags] )" (k6 docs, javascript-api/k6/check): "Returns true if all
// checks have succeeded, false otherwise"; each condition adds one sample to `checks`.
// Expect: per iteration one check() with 2 passing and 1 failing condition (returns false) and
// one all-passing check() (returns true); over 3 iterations: checks 9 passes, 3 fails,
// check_false 3, check_true 3.
import { check } from "k6";
import { Counter } from "k6/metrics";

const falseReturns = new Counter("check_false");
const trueReturns = new Counter("check_true");

export const options = { iterations: 3 };

export default function () {
  const mixed = check(10, {
    "is a number": (v) => typeof v === "number",
    "is ten": (v) => v === 10,
    "is negative": (v) => v < 0,
  });
  if (mixed === false) falseReturns.add(1);
  if (check(null, { "always true": () => true }) === true) trueReturns.add(1);
}
