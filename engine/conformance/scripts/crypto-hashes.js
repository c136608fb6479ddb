// Doc: "md5", "sha1", "sha256", "sha512", "hmac" and "Hasher" pages (k6 docs,
// javascript-api/k6-crypto), whose examples print these digests of "hello world!" (hmac with the
// secret "mysecret"); outputEncoding "hex", "base64", "base64url" (padded), "base64rawurl", "binary".
// Expect: 8 checks pass.
import { check } from "k6";
import crypto from "k6/crypto";

export const options = { iterations: 1 };

const input = "hello world!";
const inputBytes = new Uint8Array([104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100, 33]).buffer;

export default function () {
  const hasher = crypto.createHash("sha256");
  hasher.update("hello ");
  hasher.update("world!");
  check(null, {
    md5: () => crypto.md5(input, "hex") === "fc3ff98e8c6a0d3087d515c0473f8677",
    sha1: () => crypto.sha1(input, "hex") === "430ce34d020724ed75a196dfc2ad67c77772d169",
    "sha256 of string and of ArrayBuffer": () =>
      crypto.sha256(input, "hex") === "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9" &&
      crypto.sha256(inputBytes, "hex") === "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9",
    sha512: () =>
      crypto.sha512(input, "hex") ===
      "db9b1cd3262dee37756a09b9064973589847caa8e53d31a9d142ea2701b1b28abd97838bb9a27068ba305dc8d04a45a1fcf079de54d607666996b3cc54f6b67c",
    "hmac sha256": () =>
      crypto.hmac("sha256", "mysecret", input, "hex") === "893a72d8cab129e5ba85aea4599fd53f59bfe652cff4098a3780313228d8c20f",
    "incremental hasher": () => hasher.digest("hex") === "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9",
    "base64 encodings": () =>
      crypto.sha256(input, "base64") === "dQnlvaDHYtK6x/kNdYtbImP6Acy8VCq1498WO+CObKk=" &&
      crypto.sha256(input, "base64url") === "dQnlvaDHYtK6x_kNdYtbImP6Acy8VCq1498WO-CObKk=" &&
      crypto.sha256(input, "base64rawurl") === "dQnlvaDHYtK6x_kNdYtbImP6Acy8VCq1498WO-CObKk",
    "binary output": () => {
      const b = crypto.sha256(input, "binary");
      const first = Array.from(new Uint8Array(b)).slice(0, 3).join(",");
      return first === "117,9,229";
    },
  });
}
