// Doc: "Rate" (k6 docs, javascript-api/k6-metrics/rate): "a metric that keeps track of the
// percentage of added values that are non-zero".
// Expect: true, false, true, 1, 0 added: 3 non-zero of 5, rate 0.6.
import { Rate } from "k6/metrics";

const ratio = new Rate("ratio");

export const options = { iterations: 1, thresholds: { ratio: ["rate==0.6"] } };

export default function () {
  ratio.add(true);
  ratio.add(false);
  ratio.add(true);
  ratio.add(1);
  ratio.add(0);
}
