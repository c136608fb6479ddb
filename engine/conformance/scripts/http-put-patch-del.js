// Doc: "put( url, [body], [params] )", "patch( url, [body], [params] )" and
// "del( url, [body], [params] )" (k6 docs, javascript-api/k6-http).
// Expect: the server sees one PUT, one PATCH and one DELETE on /echo with their bodies; 3 checks
// pass; http_reqs 3.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const url = `${__ENV.BASE_URL}/echo`;
  const put = http.put(url, "put-body").json();
  const patch = http.patch(url, "patch-body").json();
  const del = http.del(url, "del-body").json();
  check(null, {
    "PUT echoed": () => put.method === "PUT" && put.body === "put-body",
    "PATCH echoed": () => patch.method === "PATCH" && patch.body === "patch-body",
    "DELETE echoed": () => del.method === "DELETE" && del.body === "del-body",
  });
}
