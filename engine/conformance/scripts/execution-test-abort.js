// Doc: "k6/execution" (k6 docs, javascript-api/k6-execution): test.abort([String]) "aborts the
// test run with the exit code 108 ... Aborting the test will not prevent the teardown()
// execution."
// Expect: exit 108; the 3rd iteration aborts, so at most 3 GET /ok of the 100 iterations run;
// teardown still runs (GET /hit/teardown once); stderr names the reason.
import http from "k6/http";
import exec from "k6/execution";

export const options = { vus: 1, iterations: 100 };

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
  if (exec.scenario.iterationInTest === 2) exec.test.abort("conformance abort reason");
}

export function teardown() {
  http.get(`${__ENV.BASE_URL}/hit/teardown`);
}
