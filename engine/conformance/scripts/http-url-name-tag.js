// Doc: "url`url`" (k6 docs, javascript-api/k6-http/url) and "HTTP Requests" (k6 docs,
// using-k6/http-requests), "Group URLs under one tag": http.url sets the `name` tag to the
// template with each interpolation replaced by ${}; an explicit tags.name does the same.
// Expect: 3 requests named "${}/ok?id=${}" (the base URL is interpolated too) and 2 named
// "ItemURL"; thresholds on those sub-metrics hold (exit 0).
import http from "k6/http";

export const options = {
  iterations: 1,
  thresholds: {
    "http_reqs{name:${}/ok?id=${}}": ["count==3"],
    "http_reqs{name:ItemURL}": ["count==2"],
  },
};

export default function () {
  const base = __ENV.BASE_URL;
  for (let id = 1; id <= 3; id++) http.get(http.url`${base}/ok?id=${id}`);
  for (let id = 1; id <= 2; id++) http.get(`${base}/ok?item=${id}`, { tags: { name: "ItemURL" } });
}
