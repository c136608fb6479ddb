// Doc: "get( url, [params] )" and "post( url, [body], [params] )" (k6 docs, javascript-api/k6-http):
// a string body is sent as is; "objects will be x-www-form-urlencoded".
// Expect: 3 requests (GET /echo, 2 x POST /echo) echoed back with the right method and body; 6
// checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const got = http.get(`${base}/echo?q=1`);
  check(got.json(), {
    "GET method": (e) => e.method === "GET",
    "GET query": (e) => e.query.q === "1",
  });

  const raw = http.post(`${base}/echo`, '{"name":"Bert"}', { headers: { "Content-Type": "application/json" } });
  check(raw.json(), {
    "POST string body sent as is": (e) => e.method === "POST" && e.body === '{"name":"Bert"}',
    "POST content type from params": (e) => e.headers["content-type"] === "application/json",
  });

  const form = http.post(`${base}/echo`, { a: "1", b: "two words" });
  check(form.json(), {
    "POST object body is form-encoded": (e) => e.body === "a=1&b=two+words" || e.body === "a=1&b=two%20words",
    "POST form content type": (e) => e.headers["content-type"] === "application/x-www-form-urlencoded",
  });
}
