// Doc: "Trend" (k6 docs, javascript-api/k6-metrics/trend): "a metric that allows for
// calculating different statistics on the added values (min, max, average or percentiles)".
// Expect: values 1..10: min 1, max 10, avg 5.5, med 5.5, p(90) 9.1, p(95) 9.55 (linear
// interpolation between ranked samples).
import { Trend } from "k6/metrics";

const sizes = new Trend("sizes");

export const options = {
  iterations: 1,
  thresholds: { sizes: ["avg==5.5", "min==1", "max==10", "med==5.5"] },
};

export default function () {
  for (let v = 10; v >= 1; v--) sizes.add(v);
}
