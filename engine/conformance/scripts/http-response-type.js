// Doc: "Params" (k6 docs, javascript-api/k6-http/params), `responseType`: "text" returns a
// string (the default unless discardResponseBodies), "binary" an ArrayBuffer, "none" null.
// "Options reference", Discard response bodies: makes "none" the default.
// Expect: with discardResponseBodies set, the default body is null, "text" gives "ok", "binary"
// gives 256 bytes 0..255; 4 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1, discardResponseBodies: true };

export default function () {
  const base = __ENV.BASE_URL;
  const discarded = http.get(`${base}/ok`);
  const text = http.get(`${base}/ok`, { responseType: "text" });
  const bin = http.get(`${base}/bytes/256`, { responseType: "binary" });
  const none = http.get(`${base}/ok`, { responseType: "none" });
  check(null, {
    "default body discarded": () => discarded.status === 200 && discarded.body === null,
    "text body": () => text.body === "ok",
    "binary body": () => bin.body instanceof ArrayBuffer && bin.body.byteLength === 256 && new Uint8Array(bin.body)[255] === 255,
    "none body": () => none.body === null,
  });
}
