import { describe, expect, it } from "vitest";
import { k6LoadWindow, workerClockWindow } from "../src/windows/load-window";

const T = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("the load window on k6's clock", () => {
  it("is first to last sample when k6 reported exact times", () => {
    expect(k6LoadWindow({ firstSampleMs: T + 250, lastSampleMs: T + 20_240 })).toEqual({
      startMs: T + 250,
      endMs: T + 20_240,
      seconds: 19.99,
      source: "k6-samples",
    });
  });

  it("falls back to the per-second rows, from the start of the first to the end of the last", () => {
    const rows = [new Date(T + 3000), new Date(T), new Date(T + 19_000), new Date(T + 19_000)];
    expect(k6LoadWindow({ rowSeconds: rows })).toEqual({ startMs: T, endMs: T + 20_000, seconds: 20, source: "k6-rows" });
    expect(k6LoadWindow({ firstSampleMs: T, lastSampleMs: T, rowSeconds: rows })!.seconds).toBe(20);
    expect(k6LoadWindow({ rowSeconds: [] })).toBeNull();
  });

  it("names the worker's clock when nothing else is known", () => {
    expect(workerClockWindow(new Date(T), new Date(T + 22_500))).toMatchObject({ seconds: 22.5, source: "worker-clock" });
  });
});
