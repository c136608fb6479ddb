// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Tags: "tags that should be
// set test wide across all metrics"; "k6/execution" (k6 docs), vu.metrics.tags: tags "included
// in every metric emitted by the VU"; "Thresholds" (k6 docs), "Fail a load test using checks":
// check()'s third argument tags its samples ('checks{myTag:hola}').
// Expect: 2 iterations: test-wide tag env=ci on every iteration sample, the VU tag on the
// counter samples added after it was set (2), the tagged check (2 of the 4 checks); exit 0.
import { check } from "k6";
import exec from "k6/execution";
import { Counter } from "k6/metrics";

const marks = new Counter("marks");

export const options = {
  iterations: 2,
  tags: { env: "ci" },
  thresholds: {
    "iterations{env:ci}": ["count==2"],
    "marks{phase:after}": ["count==2"],
    "checks{myTag:hola}": ["rate==1"],
  },
};

export default function () {
  exec.vu.metrics.tags.phase = "after";
  marks.add(1);
  check(1, { "plain check": (v) => v === 1 });
  check(2, { "tagged check": (v) => v === 2 }, { myTag: "hola" });
}
