// Doc: "Counter" (k6 docs, javascript-api/k6-metrics/counter): "a cumulative metric";
// Counter.add(value, [tags]) adds value, and tags create sub-metrics usable in thresholds.
// Expect: 3 iterations add 10, 12 and 20: my_counter.count == 42; the sub-metric tagged
// part=big holds only the 20; thresholds hold (exit 0).
import { Counter } from "k6/metrics";

const myCounter = new Counter("my_counter");
const amounts = [10, 12, 20];

export const options = {
  iterations: 3,
  thresholds: {
    my_counter: ["count==42"],
    "my_counter{part:big}": ["count==20"],
  },
};

export default function () {
  const amount = amounts[__ITER];
  myCounter.add(amount, { part: amount >= 20 ? "big" : "small" });
}
