// Doc: "Custom summary" (k6 docs, results-output/end-of-test/custom-summary): handleSummary(data)
// returns a map whose keys are "stdout", "stderr" or a file path (relative to the working
// directory) and whose values are the content; data.metrics.<name>.values holds the aggregates
// and data.metrics.<name>.thresholds.<expr>.ok the outcome of each threshold.
// Expect: summary-out.json holds iterations 3, my_count 6 and threshold ok true; stdout holds
// the marker line.
import { Counter } from "k6/metrics";

const myCount = new Counter("my_count");

export const options = { iterations: 3, thresholds: { my_count: ["count==6"] } };

export default function () {
  myCount.add(2);
}

export function handleSummary(data) {
  const result = {
    iterations: data.metrics.iterations.values.count,
    my_count: data.metrics.my_count.values.count,
    threshold_ok: data.metrics.my_count.thresholds["count==6"].ok,
    metric_type: data.metrics.my_count.type,
  };
  return {
    stdout: `CONFORMANCE-SUMMARY iterations=${result.iterations}\n`,
    "summary-out.json": JSON.stringify(result),
  };
}
