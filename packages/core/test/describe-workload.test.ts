import { describe, expect, it } from "vitest";
import { describeStoredWorkload, describeWorkload } from "../src/workloads/describe-workload";
import { workloadSpec } from "../src/workloads/workload-spec";

const parse = (spec: unknown) => workloadSpec.parse(spec);
const get = [{ name: "home", path: "/" }];

describe("describeWorkload", () => {
  it("says each kind's load and what an iteration sends", () => {
    expect(
      describeWorkload(
        parse({
          kind: "ramping-vus",
          startVUs: 10,
          stages: [
            { duration: "30s", target: 100 },
            { duration: "1m30s", target: 10 },
          ],
          requests: get,
        }),
      ),
    ).toEqual(["closed model: from 10 VUs up to 100 VUs in 2 stages over 2m", "each iteration sends GET /"]);
    expect(describeWorkload(parse({ kind: "constant-vus", vus: 1, duration: "1m", requests: get }))[0]).toBe("closed model: 1 VU for 1m");
    expect(describeWorkload(parse({ kind: "shared-iterations", vus: 10, iterations: 1000, requests: get }))[0]).toBe(
      "closed model: 1,000 iterations shared by 10 VUs (at most 30m)",
    );
    expect(describeWorkload(parse({ kind: "constant-arrival-rate", rate: 20, duration: "2m", preAllocatedVUs: 5, requests: get }))[0]).toBe(
      "open model: 20 iterations per 1s for 2m",
    );
    expect(
      describeWorkload(
        parse({
          kind: "ramping-arrival-rate",
          stages: [{ duration: "1m", target: 50 }],
          preAllocatedVUs: 5,
          mix: "weighted",
          requests: [
            { name: "a", path: "/a" },
            { name: "b", method: "POST", path: "/b", body: "{}" },
          ],
        }),
      ),
    ).toEqual([
      "open model: from 0 up to 50 iterations per 1s in 1 stage over 1m",
      "each iteration sends one of GET /a, POST /b (by weight)",
    ]);
  });

  it("describes a script by what it is, and a stored spec that is not a workload as null", () => {
    expect(describeWorkload(parse({ kind: "script", source: "a\nb\nc" }))).toEqual([
      "own k6 script (3 lines): its own options set the load",
    ]);
    expect(describeStoredWorkload({ kind: "nope" })).toBeNull();
  });
});
