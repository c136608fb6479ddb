// "Test lifecycle" (k6 docs, using-k6/test-lifecycle): init code runs before anything else. An
// exception there is a script error: exit 107 with the message on stderr, no iteration runs.
import http from "k6/http";

throw new Error("init blew up on purpose");

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
}
