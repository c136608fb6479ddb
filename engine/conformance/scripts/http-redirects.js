// Doc: "HTTP Requests" (k6 docs, using-k6/http-requests), "Follow redirects": k6 follows
// redirects up to maxRedirects (default 10) and returns the last response; Params.redirects
// overrides it per request. "setResponseCallback" says the callback "does include all
// redirects", i.e. each hop is a request of its own in the metrics.
// Expect: /redirect/3 followed to /ok (4 hops); redirects:0 returns the 302; redirects:1 stops
// at /redirect/2's 302. Server hits: /redirect/3 x3, /redirect/2 x2, /redirect/1 x1, /ok x1;
// http_reqs 7; 3 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const followed = http.get(`${base}/redirect/3`);
  const none = http.get(`${base}/redirect/3`, { redirects: 0 });
  const one = http.get(`${base}/redirect/3`, { redirects: 1 });
  check(null, {
    "followed to /ok": () => followed.status === 200 && followed.url === `${base}/ok` && followed.body === "ok",
    "redirects 0 returns the 302": () => none.status === 302 && none.url === `${base}/redirect/3`,
    "redirects 1 stops after one hop": () => one.status === 302 && one.url === `${base}/redirect/2`,
  });
}
