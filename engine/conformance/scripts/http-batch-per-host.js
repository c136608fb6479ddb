// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Batch per host: "the maximum
// number of simultaneous/parallel connections for the same hostname that an http.batch() call in
// a VU can make ... queue the rest"; "batch( requests )" issues them in parallel.
// Expect: 4 requests of 500ms with batchPerHost 2 take two rounds (>= 980ms, < 1800ms: not one
// round, not four); 1 check passes; 4 requests.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1, batchPerHost: 2 };

export default function () {
  const url = `${__ENV.BASE_URL}/delay/500`;
  const t0 = Date.now();
  const responses = http.batch([url, url, url, url]);
  const took = Date.now() - t0;
  check(took, { "two rounds of two": (ms) => ms >= 980 && ms < 1800 && responses.every((r) => r.status === 200) });
}
