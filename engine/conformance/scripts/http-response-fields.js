// Doc: "Response" (k6 docs, javascript-api/k6-http/response): status, status_text, proto, url,
// remote_ip, remote_port, headers (canonical names), request.method, and timings (blocked,
// connecting, tls_handshaking, sending, waiting, receiving, duration; duration "equal to
// sending + waiting + receiving").
// Expect: all 6 checks pass for a 200ms delayed response; the http_req_waiting and
// http_req_duration trends have min >= 190ms in the summary.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const res = http.get(`${base}/delay/200`);
  const t = res.timings;
  check(res, {
    "status and text": (r) => r.status === 200 && r.status_text === "200 OK",
    "protocol and url": (r) => r.proto === "HTTP/1.1" && r.url === `${base}/delay/200`,
    "remote address": (r) => r.remote_ip === "127.0.0.1" && r.remote_port === Number(/:(\d+)\//.exec(base)[1]),
    "canonical header name": (r) => String(r.headers["Content-Type"]).startsWith("text/plain"),
    "request method": (r) => r.request.method === "GET",
    "timings present": () =>
      [t.blocked, t.connecting, t.tls_handshaking, t.sending, t.waiting, t.receiving, t.duration].every(
        (v) => typeof v === "number" && v >= 0,
      ) &&
      t.waiting >= 190 &&
      Math.abs(t.duration - (t.sending + t.waiting + t.receiving)) < 0.01,
  });
}
