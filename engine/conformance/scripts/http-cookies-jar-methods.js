// Doc: "Cookies" (k6 docs, using-k6/cookies): a request cookie `{ value, replace: true }`
// "should override a cookie in the VU cookie jar"; "CookieJar" (k6 docs,
// javascript-api/k6-http/cookiejar): delete(url, name) "Deletes the name cookie for the given URL",
// clear(url) "Delete all cookies for the given URL".
// Expect: 3 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const base = __ENV.BASE_URL;
  const url = `${base}/cookies`;
  const jar = http.cookieJar();
  jar.set(url, "my_cookie", "hello world");
  jar.set(url, "other", "1");
  const replaced = http.get(url, { cookies: { my_cookie: { value: "hello world 2", replace: true } } }).json().cookies;
  jar.delete(url, "my_cookie");
  const afterDelete = http.get(url).json().cookies;
  jar.clear(url);
  const afterClear = http.get(url).json().cookies;
  check(null, {
    "replace overrides the jar cookie": () => replaced.my_cookie === "hello world 2",
    "delete removes one cookie": () => afterDelete.my_cookie === undefined && afterDelete.other === "1",
    "clear removes all": () => Object.keys(afterClear).length === 0,
  });
}
