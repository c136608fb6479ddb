// Doc: "Options reference" (k6 docs, using-k6/k6-options/reference), Setup timeout: "how long the
// setup() function can run before it's terminated and the test fails"; "Test lifecycle": "If it
// exceeds this timeout, the test fails before any VUs start." k6's exit code for it is 100
// (SetupTimeout).
// Expect: setup sleeping 3s with setupTimeout 500ms: exit 100 within ~2s, no GET /ok.
import http from "k6/http";
import { sleep } from "k6";

export const options = { iterations: 1, setupTimeout: "500ms" };

export function setup() {
  sleep(3);
}

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
}
