// Platform metric periods (CloudWatch, Cloud Monitoring) as observePeriods records them: a point per period,
// stamped at the middle of the period it measured. The platform here is a source answering fixed values.
import { afterEach, describe, expect, it, vi } from "vitest";
import { observePeriods, type PeriodValues } from "../src/cloud/period-observer";
import type { InfraPoint } from "../src/provider";

afterEach(() => {
  vi.useRealTimers();
});

describe("cloud metric periods", () => {
  it("a 60 s period's datapoint dated 12:00:00 is stored at 12:00:30, the middle of the minute it covers", async () => {
    const noon = Date.UTC(2026, 10, 29, 12, 0, 0);
    const periodMs = 60_000;
    const values = new Map<number, PeriodValues>([[noon, { inService: 3 }]]);
    // The clock at 12:00:40: the window (and so the observer's first period) began in the minute of 12:00.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(noon + 40_000);
    const window = new AbortController();
    // The window is over already: the observer fetches once and records the periods that have values.
    window.abort();
    const points: InfraPoint[] = [];
    for await (const p of observePeriods(
      {
        periodSeconds: 60,
        primary: "inService",
        fetch: async (start, end) => new Map([...values].filter(([t]) => t >= start.getTime() - periodMs && t < end.getTime())),
        toPoint: (ts, v) => ({ ts, replicas: v.inService ?? 0, cpuPercent: null }),
      },
      { signal: window.signal },
      { settleSeconds: 0, waitSeconds: 0, pollSeconds: 0 },
      () => {},
    ))
      points.push(p);
    const stored = points.find((p) => p.replicas === 3);
    expect(stored?.ts.toISOString()).toBe("2026-11-29T12:00:30.000Z");
  });
});
