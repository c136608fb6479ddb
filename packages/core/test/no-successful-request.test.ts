// A run that measured nothing of its target (no request, or every request failed) is flagged and left out of
// verdicts, and a script that names a loopback address is said to be the likely cause.
import { describe, expect, it } from "vitest";
import { flagsOfRun, noSuccessfulRequestFlag, scriptLoopbackHosts, verdictExcludingFlags } from "../src";

const load = { iterations: 10, droppedIterations: 0, maxVUs: 1, bytesSent: 0, bytesReceived: 0, generatorCpuPercent: null };

describe("no successful request", () => {
  it("flags a run with no request and one whose every request failed, not one with a single success", () => {
    expect(flagsOfRun({ flags: [], summary: { load, requests: 0, failures: 0 } }).map((f) => f.code)).toEqual(["no-successful-request"]);
    const allFailed = flagsOfRun({ flags: [], summary: { load, requests: 12, failures: 12 } });
    expect(allFailed.map((f) => f.code)).toEqual(["no-successful-request"]);
    expect(allFailed[0]!.message).toContain("all 12 requests failed");
    expect(flagsOfRun({ flags: [], summary: { load, requests: 12, failures: 11 } })).toEqual([]);
    expect(verdictExcludingFlags(allFailed).map((f) => f.code)).toEqual(["no-successful-request"]);
  });

  it("names the script's loopback hosts as the likely cause", () => {
    const flag = noSuccessfulRequestFlag({ requests: 5, failures: 5 }, ["127.0.0.1"]);
    expect(flag!.message).toContain("the script names 127.0.0.1");
    expect(flag!.message).toContain("__ENV.OPSBENCH_BASE_URL");
  });
});

describe("scriptLoopbackHosts", () => {
  it("lists each loopback host a script's URLs name, once, in order", () => {
    const script = `import http from "k6/http";
      export default function () {
        http.get("http://127.0.0.1:8080/a"); http.get('http://localhost:3000/b'); http.get("http://127.0.0.1:8080/c");
        http.get("https://[::1]:8443/"); http.get("http://0.0.0.0:80/"); http.get("http://api.localhost/x");
      }`;
    expect(scriptLoopbackHosts(script)).toEqual(["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "api.localhost"]);
  });
  it("is empty for a script that uses the target's address or another host", () => {
    expect(scriptLoopbackHosts('http.get(`${__ENV.OPSBENCH_BASE_URL}/a`); http.get("https://example.com/127.0.0.1")')).toEqual([]);
    expect(scriptLoopbackHosts('http.get("http://10.0.0.5:8080/")')).toEqual([]);
  });
});
