// Doc: "b64encode( input, [encoding] )" and "b64decode( input, [encoding], [format] )" (k6 docs,
// javascript-api/k6-encoding): encodings "std" (default, padded, + and /), "rawstd" (no
// padding), "url" (- and _), "rawurl"; decode returns an ArrayBuffer, or a string with format "s".
// Expect: 6 checks pass.
import { check } from "k6";
import encoding from "k6/encoding";

export const options = { iterations: 1 };

export default function () {
  const bytes = new Uint8Array([0xfb, 0xff]).buffer;
  check(null, {
    "std string": () => encoding.b64encode("hello world") === "aGVsbG8gd29ybGQ=",
    "rawstd drops padding": () => encoding.b64encode("hello world", "rawstd") === "aGVsbG8gd29ybGQ",
    "std and url alphabets": () =>
      encoding.b64encode(bytes) === "+/8=" && encoding.b64encode(bytes, "url") === "-_8=" && encoding.b64encode(bytes, "rawurl") === "-_8",
    "decode to string": () => encoding.b64decode("aGVsbG8gd29ybGQ=", "std", "s") === "hello world",
    "decode to ArrayBuffer": () => {
      const buf = encoding.b64decode("-_8", "rawurl");
      const view = new Uint8Array(buf);
      return buf instanceof ArrayBuffer && view.length === 2 && view[0] === 0xfb && view[1] === 0xff;
    },
    "round trip of UTF-8 text": () => encoding.b64decode(encoding.b64encode("héllo ✓", "url"), "url", "s") === "héllo ✓",
  });
}
