// Doc: "batch( requests )" (k6 docs, javascript-api/k6-http/batch): "Batch multiple HTTP requests
// together to issue them in parallel over multiple TCP connections"; defaults batch 20,
// batchPerHost 6 ("Options reference").
// Expect: 4 requests of 500ms run at once: the batch takes 490..900ms (not two rounds); 1 check
// passes.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const url = `${__ENV.BASE_URL}/delay/500`;
  const t0 = Date.now();
  const responses = http.batch([url, url, url, url]);
  const took = Date.now() - t0;
  check(took, { "in parallel": (ms) => ms >= 490 && ms < 900 && responses.every((r) => r.status === 200) });
}
