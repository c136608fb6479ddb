// Doc: "Thresholds" (k6 docs, using-k6/thresholds): a threshold that does not hold at the end
// fails the test (exit code 99 per the exit-code list: ThresholdsHaveFailed).
// Expect: exit 99; "count<3" crossed (5 errors counted) while "count>0" holds.
import { Counter } from "k6/metrics";

const errors = new Counter("errors");

export const options = {
  iterations: 5,
  thresholds: { errors: ["count<3", "count>0"] },
};

export default function () {
  errors.add(1);
}
