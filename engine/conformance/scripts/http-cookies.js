// Doc: "Cookies" (k6 docs, using-k6/cookies): the per-VU jar stores cookies from Set-Cookie and
// sends them on later requests; Params.cookies are "request scoped cookies (they won't be added
// to VU cookie jar)"; response.cookies maps a name to an array of cookie objects;
// jar.cookiesForURL(url) maps a name to an array of values. "CookieJar" (k6 docs,
// javascript-api/k6-http/cookiejar): set(), and Params.jar uses another jar.
// Expect: 6 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const set = http.get(`${base}/cookies/set?flavor=choc`);
  const jar = http.cookieJar();
  const afterSet = http.get(`${base}/cookies`).json().cookies;
  const scoped = http.get(`${base}/cookies`, { cookies: { scoped: "yes" } }).json().cookies;
  const afterScoped = http.get(`${base}/cookies`).json().cookies;
  jar.set(`${base}/cookies`, "manual", "added");
  const afterJarSet = http.get(`${base}/cookies`).json().cookies;
  const local = new http.CookieJar();
  local.set(`${base}/cookies`, "only_local", "1");
  const withLocal = http.get(`${base}/cookies`, { jar: local }).json().cookies;

  check(null, {
    "response.cookies from Set-Cookie": () => set.cookies.flavor[0].value === "choc",
    "jar sends stored cookie": () => afterSet.flavor === "choc",
    "request-scoped cookie sent once": () => scoped.scoped === "yes" && scoped.flavor === "choc" && afterScoped.scoped === undefined,
    "cookiesForURL lists values": () => jar.cookiesForURL(`${base}/cookies`).flavor[0] === "choc",
    "jar.set cookie sent": () => afterJarSet.manual === "added",
    "local jar replaces the VU jar": () => withLocal.only_local === "1" && withLocal.flavor === undefined,
  });
}
