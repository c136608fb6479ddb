// Doc: "k6/execution" (k6 docs, javascript-api/k6-execution): test.fail([String]) "fails the
// test run with the exit code 110 ... Failing the test will not interrupt test execution,
// allowing iterations to finish normally."
// Expect: exit 110 and all 5 iterations complete (5 GET /ok).
import http from "k6/http";
import exec from "k6/execution";

export const options = { vus: 1, iterations: 5 };

export default function () {
  if (exec.scenario.iterationInTest === 1) exec.test.fail("marked as failed");
  http.get(`${__ENV.BASE_URL}/ok`);
}
