// Doc: "file( data, [filename], [contentType] )" (k6 docs, javascript-api/k6-http/file): a file
// object "used for building Multipart requests (file uploads)"; posting an object holding one
// sends multipart/form-data. FileData has data, filename and content_type.
// Expect: the server receives a multipart/form-data body with the file part (filename, content
// type, content) and the plain field; 3 checks pass.
import http from "k6/http";
import { check } from "k6";

export const options = { iterations: 1 };

export default function () {
  const f = http.file("file-content-123", "notes.txt", "text/plain");
  const echoed = http.post(`${__ENV.BASE_URL}/echo`, { field: "plain-value", upload: f }).json();
  check(null, {
    "FileData fields": () => f.filename === "notes.txt" && f.content_type === "text/plain",
    "multipart content type": () => echoed.headers["content-type"].startsWith("multipart/form-data; boundary="),
    "parts in the body": () =>
      echoed.body.includes('filename="notes.txt"') &&
      echoed.body.includes("Content-Type: text/plain") &&
      echoed.body.includes("file-content-123") &&
      echoed.body.includes('name="field"') &&
      echoed.body.includes("plain-value"),
  });
}
