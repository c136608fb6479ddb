// Doc: "Response.json( [selector] )" (k6 docs, javascript-api/k6-http/response/response-json):
// parses the body as JSON; the optional selector uses the gjson path syntax.
// Expect: the whole body, a nested field, an array element's field and the "#" count all read
// correctly from the fixed /json body; 4 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const res = http.get(`${__ENV.BASE_URL}/json`);
  check(res, {
    "whole body": (r) => r.json().user.id === 7 && r.json().items.length === 3,
    "nested selector": (r) => r.json("user.name") === "Ada",
    "array element selector": (r) => r.json("items.1.name") === "b",
    "count selector": (r) => r.json("items.#") === 3,
  });
}
