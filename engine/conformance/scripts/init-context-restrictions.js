// Doc: "open( filePath, [mode] )" (k6 docs, javascript-api/init-context/open) is an init-context
// function; "SharedArray" (k6 docs): "Attempting to instantiate a SharedArray outside of the init
// context results in the exception new SharedArray must be called in the init context"; "Test
// lifecycle" (k6 docs): the full k6 API (such as HTTP requests) is for setup/teardown/VU code,
// "unlike the init stage".
// Expect: a request in init throws (caught), open() and new SharedArray() in VU code throw;
// 3 checks pass; no request reaches the server.
import http from "k6/http";
import { check } from "k6";
import { SharedArray } from "k6/data";

let initRequestThrew = false;
try {
  http.get(`${__ENV.BASE_URL}/ok`);
} catch (_) {
  initRequestThrew = true;
}

export const options = { iterations: 1 };

function throws(fn) {
  try {
    fn();
    return false;
  } catch (_) {
    return true;
  }
}

export default function () {
  check(null, {
    "HTTP request in init throws": () => initRequestThrew,
    "open() outside init throws": () => throws(() => open("./data/hello.txt")),
    "new SharedArray outside init throws": () => throws(() => new SharedArray("late", () => [1])),
  });
}
