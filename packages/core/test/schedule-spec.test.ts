import { describe, expect, it } from "vitest";
import { cronProblem, isTimeZone, nextTicks, scheduleInput } from "../src/index";

const run = { kind: "run", target: "shop", workload: "ramp" } as const;
const issues = (input: unknown) => {
  const r = scheduleInput.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("a schedule's cron pattern and time zone", () => {
  it("names what is wrong with a pattern", () => {
    expect(cronProblem("61 * * * *")).toBe("'61 * * * *' is not a cron pattern: minute 61 is out of range (0-59)");
    expect(cronProblem("0 24 * * *")).toBe("'0 24 * * *' is not a cron pattern: hour 24 is out of range (0-23)");
    expect(cronProblem("* * * * * *")).toMatch(/it has 6 fields, five are needed/);
    expect(cronProblem("@hourly")).toMatch(/it has 1 field, five are needed/);
    expect(cronProblem("x * * * *")).toBe("'x * * * *' is not a cron pattern: minute 'x' has characters a cron field cannot have");
    expect(cronProblem("")).toMatch(/a cron pattern is needed/);
    // Parses, but never ticks: refused rather than saved as a schedule that never runs.
    expect(cronProblem("0 0 31 4,6 *")).toBe(
      "'0 0 31 4,6 *' is not a cron pattern: no day it names exists in the months it names (e.g. 31 April)",
    );
    expect(cronProblem("0 0 30 2 *")).toMatch(/no day it names exists/);
    expect(cronProblem("0 0 29 2 *")).toBeNull();
    expect(cronProblem("*/15 9-17 * * 1-5")).toBeNull();
  });

  it("takes IANA zones and refuses others", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone(" UTC")).toBe(false);
    expect(issues({ name: "n", what: run, cron: "0 * * * *", timeZone: "Mars/Olympus" })).toEqual([
      'timeZone: "Mars/Olympus" is not an IANA time zone (e.g. "Europe/Berlin", "UTC")',
    ]);
  });

  it("parses a schedule: the pattern's spaces made single, UTC and running by default", () => {
    expect(scheduleInput.parse({ name: " nightly ", what: run, cron: " 0  3 * * * " })).toEqual({
      name: "nightly",
      what: run,
      cron: "0 3 * * *",
      timeZone: "UTC",
      paused: false,
    });
    expect(issues({ name: "n", what: { kind: "study", studyId: "nope" }, cron: "0 3 * * *" })).toEqual(["what.studyId: Invalid UUID"]);
    expect(issues({ name: "n", what: run, cron: "0 3 * * *", extra: 1 })).toHaveLength(1);
  });

  it("gives the next ticks in the schedule's zone, across a daylight-saving change", () => {
    // 02:30 every day in Berlin; on 29 March 2026 clocks jump from 02:00 to 03:00.
    const ticks = nextTicks("30 2 * * *", "Europe/Berlin", 3, new Date("2026-03-27T12:00:00Z"));
    expect(ticks[0]!.toISOString()).toBe("2026-03-28T01:30:00.000Z");
    // Whatever the library makes of the missing hour, every tick is after the one before, a day or so apart.
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]!.getTime() - ticks[i - 1]!.getTime()).toBeGreaterThan(20 * 3600_000);
    expect(nextTicks("0 9 * * 1", "UTC", 2, new Date("2026-11-29T00:00:00Z")).map((d) => d.toISOString())).toEqual([
      "2026-11-30T09:00:00.000Z",
      "2026-12-07T09:00:00.000Z",
    ]);
  });
});
