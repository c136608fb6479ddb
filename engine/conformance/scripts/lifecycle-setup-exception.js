// Doc: "Test lifecycle" (k6 docs, using-k6/test-lifecycle): setup runs before the VU stage.
// An exception thrown in setup is a script error: the VU stage never runs and k6 exits with
// its script-exception code 107, naming the error on stderr.
import http from "k6/http";

export function setup() {
  throw new Error("setup exploded");
}

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
}
