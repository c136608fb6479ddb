// Which generator may load a run's target (src/segments/generator.ts hostProblem): a loopback target only from the
// run's own host, a remote one only through a runner that routes. The whole path with hosts of our own:
// tests/generators-hosts.test.ts.
import { describe, expect, it } from "vitest";
import { hostProblem } from "../src/segments/generator";
import type { K6Settings } from "../src/runner-client";

const k6 = (remoteLoad: boolean) => ({ remoteLoad }) as K6Settings;
const job = (host?: string) => ({ segment: 1, count: 2, ...(host ? { host } : {}) });

describe("a generator's host and the run's target", () => {
  it("a loopback target is refused on another host, naming both hosts and the target", () => {
    for (const url of ["http://127.0.0.1:8080", "http://127.0.0.2:9000/", "http://localhost:8080", "http://[::1]:8080"]) {
      const problem = hostProblem(job("run-host"), url, { host: "gen-b", k6: k6(true) });
      expect(problem, url).toContain("load generator segment 2/2 refused on host gen-b: the target");
      expect(problem, url).toContain("is on the loopback of host run-host (the run's)");
    }
  });

  it("a loopback target is loaded on the run's own host, and by a job of an older worker that names no host", () => {
    expect(hostProblem(job("run-host"), "http://127.0.0.1:8080", { host: "run-host", k6: k6(false) })).toBeNull();
    expect(hostProblem(job(), "http://127.0.0.1:8080", { host: "gen-b", k6: k6(false) })).toBeNull();
  });

  it("a remote target needs a runner that routes, on any host", () => {
    expect(hostProblem(job("run-host"), "http://10.231.5.2:8080", { host: "gen-b", k6: k6(false) })).toMatch(
      /^load generator segment 2\/2 refused on host gen-b: its runner cannot route k6's sandbox to the remote target 10\.231\.5\.2/,
    );
    expect(hostProblem(job("run-host"), "http://10.231.5.2:8080", { host: "gen-b", k6: k6(true) })).toBeNull();
    expect(hostProblem(job("run-host"), "https://bench.example.com", { host: "run-host", k6: k6(true) })).toBeNull();
  });
});
