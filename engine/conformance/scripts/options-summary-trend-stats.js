// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Summary trend stats: which
// stats of Trend metrics the end-of-test summary shows/exports (default avg,min,med,max,p(90),p(95));
// "count" and any "p(N)" may be asked for.
// Expect: values 1..10 exported with exactly the asked stats: min 1, max 10, count 10, p(99) 9.91.
import { Trend } from "k6/metrics";

const sizes = new Trend("sizes");

export const options = { iterations: 1, summaryTrendStats: ["min", "max", "count", "p(99)"] };

export default function () {
  for (let v = 1; v <= 10; v++) sizes.add(v);
}
