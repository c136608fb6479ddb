// Doc: "setResponseCallback( callback )" (k6 docs, javascript-api/k6-http/set-response-callback):
// "Setting the callback to null disables the tagging with expected_response and the emitting of
// http_req_failed."
// Expect: 2 requests (one 500) and no http_req_failed metric at all; exit 0.
import http from "k6/http";

http.setResponseCallback(null);

export const options = { iterations: 1 };

export default function () {
  http.get(`${__ENV.BASE_URL}/ok`);
  http.get(`${__ENV.BASE_URL}/status/500`);
}
