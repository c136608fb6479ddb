// Doc: "batch( requests )" (k6 docs, javascript-api/k6-http/batch): requests given as an array
// (of [method, url, body, params] arrays, request objects or URL strings) return an array of
// Responses in the same order.
// Expect: 4 responses in order (200 /ok, POST echo, 404, GET /json by string); 5 checks pass;
// http_reqs 4.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const responses = http.batch([
    ["GET", `${base}/ok`],
    ["POST", `${base}/echo`, "batched", { headers: { "X-Batch": "1" } }],
    { method: "GET", url: `${base}/status/404` },
    `${base}/json`,
  ]);
  check(responses, {
    "array of 4": (r) => Array.isArray(r) && r.length === 4,
    "first is /ok": (r) => r[0].status === 200 && r[0].body === "ok",
    "second is the POST": (r) => r[1].json().method === "POST" && r[1].json().body === "batched" && r[1].json().headers["x-batch"] === "1",
    "third is 404": (r) => r[2].status === 404,
    "fourth is /json": (r) => r[3].json().user.name === "Ada",
  });
}
