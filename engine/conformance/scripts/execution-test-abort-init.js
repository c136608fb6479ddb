// Doc: "k6/execution" (k6 docs, javascript-api/k6-execution), "Test Abort": "Aborting is possible
// during initialization" with exit code 108.
// Expect: exit 108, no request made.
import http from "k6/http";
import exec from "k6/execution";

exec.test.abort("aborted in init");

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
}
