// Doc: "setResponseCallback( callback )" and "expectedStatuses( statuses )" (k6 docs,
// javascript-api/k6-http): requests are tagged expected_response true/false by the callback and
// "http_req_failed will be emitted with the reverse"; Params.responseCallback overrides it for
// one request.
// Expect: with 200 and 404 expected, /status/404 is not failed, /status/500 is; a per-request
// expectedStatuses(500) makes a 500 expected and a 200 failed. Failed: 2 of 5 requests
// (http_req_failed passes 2 = failed, fails 3 = not failed).
import http from "k6/http";

http.setResponseCallback(http.expectedStatuses(200, { min: 404, max: 404 }));
const only500 = http.expectedStatuses(500);

export const options = {
  iterations: 1,
  thresholds: {
    "http_reqs{expected_response:true}": ["count==3"],
    "http_reqs{expected_response:false}": ["count==2"],
  },
};

export default function () {
  const base = __ENV.BASE_URL;
  http.get(`${base}/status/200`);
  http.get(`${base}/status/404`);
  http.get(`${base}/status/500`);
  http.get(`${base}/status/500`, { responseCallback: only500 });
  http.get(`${base}/status/200`, { responseCallback: only500 });
}
