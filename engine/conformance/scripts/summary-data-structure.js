// Doc: "Custom summary" (k6 docs, results-output/end-of-test/custom-summary), "Summary data
// reference": root_group.checks lists each check with passes and fails; state.testRunDurationMs;
// metrics.<name>.type/contains/values; sub-metrics from thresholds appear as their own keys.
// Expect: summary-data.json holds the check counts (3 passes, 1 fail for "even"), the metric
// types, the trend values and the sub-metric; the run took more than 0 ms.
import { check } from "k6";
import { Trend } from "k6/metrics";

const lat = new Trend("lat", true);

export const options = { iterations: 4, thresholds: { "lat{kind:slow}": ["max<1000"] } };

export default function () {
  check(__ITER, { even: (i) => i % 2 === 0 || i === 1 });
  lat.add(__ITER === 3 ? 40 : 10, { kind: __ITER === 3 ? "slow" : "fast" });
}

export function handleSummary(data) {
  const evenCheck = data.root_group.checks.find((c) => c.name === "even");
  const out = {
    check_passes: evenCheck.passes,
    check_fails: evenCheck.fails,
    duration_positive: data.state.testRunDurationMs > 0,
    checks_type: data.metrics.checks.type,
    lat_type: data.metrics.lat.type,
    lat_contains: data.metrics.lat.contains,
    lat_max: data.metrics.lat.values.max,
    lat_avg: data.metrics.lat.values.avg,
    slow_max: data.metrics["lat{kind:slow}"].values.max,
    iterations_count: data.metrics.iterations.values.count,
  };
  return { "summary-data.json": JSON.stringify(out) };
}
