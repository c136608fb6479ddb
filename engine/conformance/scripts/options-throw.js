// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Throw: whether k6 "should
// throw exceptions when certain errors occur, or if it should just log them with a warning",
// e.g. "Failing to make HTTP requests ... due to a network error". Default false.
// Expect: with throw: true, a refused connection throws (caught: 1 check passes), and an uncaught
// one ends its iteration: reached_end 1 of 2 iterations; exit 0.
import http from "k6/http";
import { check } from "k6";
import { Counter } from "k6/metrics";

const reachedEnd = new Counter("reached_end");

export const options = { vus: 1, iterations: 2, throw: true };

export default function () {
  if (__ITER === 0) {
    let threw = false;
    try {
      http.get("http://127.0.0.1:1/refused");
    } catch (_) {
      threw = true;
    }
    check(threw, { "network error thrown": (t) => t === true });
  } else {
    http.get("http://127.0.0.1:1/refused");
  }
  reachedEnd.add(1);
}
