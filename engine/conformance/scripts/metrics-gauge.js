// Doc: "Gauge" (k6 docs, javascript-api/k6-metrics/gauge): "a metric that stores the min, max
// and last values added to it".
// Expect: values 5, 12, 7 added in order: value (last) 7, min 5, max 12.
import { Gauge } from "k6/metrics";

const level = new Gauge("level");

export const options = { iterations: 1, thresholds: { level: ["value==7"] } };

export default function () {
  level.add(5);
  level.add(12);
  level.add(7);
}
