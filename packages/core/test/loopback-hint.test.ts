import { describe, expect, it } from "vitest";
import { scriptLoopbackHosts } from "../src/workloads/loopback-hint";

describe("scriptLoopbackHosts", () => {
  it("names each loopback host a script's URLs point at, once, in order", () => {
    const script = [
      'http.get("http://127.0.0.1:8080/items");',
      "http.post(`https://localhost/api`);",
      'http.get("http://[::1]:3000/");',
      'http.get("http://127.0.0.1:8080/other");',
      'const ws = "ws://LOCALHOST:9000";',
      'http.get("http://api.localhost/x");',
    ].join("\n");
    expect(scriptLoopbackHosts(script)).toEqual(["127.0.0.1", "localhost", "[::1]", "api.localhost"]);
  });

  it("finds none in a script that uses the target's address, or names hosts that only look alike", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a k6 script, as text
    expect(scriptLoopbackHosts('http.get(`${__ENV.OPSBENCH_BASE_URL}/`);\nhttp.get(__ENV.OPSBENCH_BASE_URL + "/x");')).toEqual([]);
    expect(scriptLoopbackHosts('http.get("http://localhost.example.com/"); http.get("http://127.0.0.10.nip.io/");')).toEqual([]);
    expect(scriptLoopbackHosts("// runs against localhost by default")).toEqual([]);
  });
});
