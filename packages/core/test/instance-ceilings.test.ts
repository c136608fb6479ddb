import { describe, expect, it } from "vitest";
import {
  ceilingBreaches,
  DEFAULT_INSTANCE_CEILINGS,
  DEFAULT_WORKSPACE_LIMITS,
  effectiveLimits,
  limitPhrase,
  workloadLimitBreaches,
} from "../src";

describe("instance ceilings over workspace limits", () => {
  it("a new install's ceilings are the workspace defaults, so an owner raises nothing until the admin does", () => {
    expect(DEFAULT_INSTANCE_CEILINGS).toEqual(DEFAULT_WORKSPACE_LIMITS);
    expect(ceilingBreaches({ maxVUs: 1_000_000, maxDurationSeconds: 7 * 86_400 }, DEFAULT_INSTANCE_CEILINGS).map((b) => b.message)).toEqual(
      [
        "604800 is above the instance's ceiling maxDurationSeconds (3600), set by the instance admin",
        "1000000 is above the instance's ceiling maxVUs (1000), set by the instance admin",
      ],
    );
    expect(ceilingBreaches({ maxVUs: 1000, maxConcurrentRuns: 1 }, DEFAULT_INSTANCE_CEILINGS)).toEqual([]);
  });

  it("each effective limit is the lower of the two, and messages name the ceiling when it binds", () => {
    const own = { ...DEFAULT_WORKSPACE_LIMITS, maxVUs: 500, maxConcurrentRuns: 50 };
    const limits = effectiveLimits(own, { ...DEFAULT_INSTANCE_CEILINGS, maxVUs: 2000, maxConcurrentRuns: 3 });
    expect(limits.maxVUs).toBe(500);
    expect(limits.maxConcurrentRuns).toBe(3);
    expect(limitPhrase(limits, "maxVUs")).toBe("the workspace's limit maxVUs is 500");
    expect(limitPhrase(limits, "maxConcurrentRuns")).toBe("the instance's ceiling maxConcurrentRuns is 3");
    expect(JSON.parse(JSON.stringify(limits))).toEqual(limits);
    const lowered = effectiveLimits(own, { ...DEFAULT_INSTANCE_CEILINGS, maxVUs: 2 });
    expect(workloadLimitBreaches({ totalDurationSeconds: 10, maxVUs: 5, options: {} }, lowered)[0]?.message).toBe(
      "uses up to 5 VUs; the instance's ceiling maxVUs is 2",
    );
  });
});
