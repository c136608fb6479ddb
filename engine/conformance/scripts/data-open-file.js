// Doc: "open( filePath, [mode] )" (k6 docs, javascript-api/init-context/open): in the init
// context, reads a file relative to the script as a string, or with mode "b" as an ArrayBuffer.
// Expect: the text is "hello from a file\n" and the binary read has 18 bytes starting with "h";
// 3 checks pass.
import { check } from "k6";

const text = open("./data/hello.txt");
const bytes = open("./data/hello.txt", "b");

export const options = { iterations: 1 };

export default function () {
  check(null, {
    "text content": () => text === "hello from a file\n",
    "binary is an ArrayBuffer of 18 bytes": () => bytes instanceof ArrayBuffer && bytes.byteLength === 18,
    "binary first byte is h": () => new Uint8Array(bytes)[0] === 104,
  });
}
