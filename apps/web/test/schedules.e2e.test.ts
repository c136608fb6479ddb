// The /schedules page in a real browser: the form refuses a pattern and a zone with the API's words beside their
// boxes, saves a schedule that the list then shows with its next ticks (in its zone) and its job scheduler in Redis;
// pause and resume change its state there and in Redis; a skipped tick shows its reason; delete removes it.
// Patterns that do not tick during the test (1 January); nothing is queued.
import { createScheduleQueue, schedulerIdOf } from "@opsbench/jobs";
import { nextTicks } from "@opsbench/core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openTestStack, shortRamp, taewaTarget, testRedisUrl, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
const queue = createScheduleQueue(testRedisUrl());

beforeAll(async () => {
  stack = await openTestStack();
  browser = await launchBrowser();
  await stack.scope.targets.put(taewaTarget("page-target"));
  await stack.scope.workloads.put(shortRamp("page-load"));
});
afterAll(async () => {
  await browser?.close();
  await queue.close();
  await stack?.close();
});

async function newPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("dialog", (d) => void d.accept());
  return page;
}

const schedulerKeys = async () => (await queue.getJobSchedulers()).map((s) => s.key);

describe("the schedules page", () => {
  it("is linked from the navigation and marks it current", async () => {
    const page = await newPage();
    try {
      await page.goto(`${web}/`);
      await page.locator('nav[aria-label="Main"] a', { hasText: "Schedules" }).click();
      await page.waitForURL(`${web}/schedules`);
      expect(await page.locator('nav[aria-label="Main"] [aria-current="page"]').allTextContents()).toEqual(["Schedules"]);
      await page.getByTestId("schedules-empty").waitFor();
    } finally {
      await page.close();
    }
  });

  it("refuses a bad pattern and zone with their reasons, saves, pauses, resumes and deletes a schedule", async () => {
    const page = await newPage();
    try {
      await page.goto(`${web}/schedules`);
      const form = page.getByTestId("schedule-form");
      await form.locator('input[name="name"]').fill("nightly page check");
      await form.locator('input[name="cron"]').fill("61 3 1 1 *");
      await form.locator('input[name="timeZone"]').fill("Mars/Olympus");
      const save = page.getByTestId("schedule-save");
      await expect.poll(() => save.isEnabled()).toBe(true);
      await save.click();
      await expect
        .poll(() => page.getByTestId("error-cron").textContent())
        .toBe("'61 3 1 1 *' is not a cron pattern: minute 61 is out of range (0-59)");
      expect(await page.getByTestId("error-timeZone").textContent()).toBe(
        '"Mars/Olympus" is not an IANA time zone (e.g. "Europe/Berlin", "UTC")',
      );
      expect(await stack.db.schedule.count()).toBe(0);

      await form.locator('input[name="cron"]').fill("30 4 1 1 *");
      await form.locator('input[name="timeZone"]').fill("Europe/Berlin");
      await save.click();
      const row = page.getByTestId("schedule-row").filter({ hasText: "nightly page check" });
      await row.waitFor();
      const saved = await stack.db.schedule.findFirstOrThrow({ where: { name: "nightly page check" } });
      expect([saved.kind, saved.targetName, saved.workloadName, saved.cron, saved.timeZone]).toEqual([
        "run",
        "page-target",
        "page-load",
        "30 4 1 1 *",
        "Europe/Berlin",
      ]);
      // 04:30 on 1 January in Berlin, as the page writes it, and the scheduler that will tick then.
      const first = nextTicks("30 4 1 1 *", "Europe/Berlin", 1)[0]!;
      expect(await row.getByTestId("schedule-next").locator("li").first().textContent()).toBe(`${first.getUTCFullYear()}-01-01 04:30`);
      expect(await row.getByTestId("schedule-state").textContent()).toBe("ACTIVE");
      expect(await schedulerKeys()).toEqual([schedulerIdOf(saved.id)]);
      await page.screenshot({ path: "/tmp/opsbench-schedules-page.png", fullPage: true });

      await row.getByTestId("schedule-pause").click();
      await expect.poll(() => row.getByTestId("schedule-state").textContent()).toBe("PAUSED");
      expect(await schedulerKeys()).toEqual([]);
      expect(await row.getByTestId("schedule-next").count()).toBe(0);

      // A skipped tick (as the worker records one) shows its reason.
      await stack.db.scheduleTick.create({
        data: {
          scheduleId: saved.id,
          tickAt: new Date("2026-01-01T03:30:00Z"),
          outcome: "SKIPPED",
          reason: "the previous run x is still running",
        },
      });
      await row.getByTestId("schedule-resume").click();
      await expect.poll(() => row.getByTestId("schedule-state").textContent()).toBe("ACTIVE");
      expect(await schedulerKeys()).toEqual([schedulerIdOf(saved.id)]);
      const tick = row.getByTestId("schedule-tick");
      expect(await tick.getAttribute("data-outcome")).toBe("SKIPPED");
      expect(await tick.textContent()).toContain("2026-01-01 04:30SKIPPEDthe previous run x is still running");
      await page.screenshot({ path: "/tmp/opsbench-schedules-skipped.png", fullPage: true });

      await row.getByTestId("schedule-delete").click();
      await page.getByTestId("schedules-empty").waitFor();
      expect(await stack.db.schedule.count()).toBe(0);
      expect(await schedulerKeys()).toEqual([]);
      const audit = await stack.db.auditEvent.findMany({ where: { subjectId: saved.id }, orderBy: { id: "asc" } });
      expect(audit.map((a) => a.action)).toEqual(["schedule.create", "schedule.pause", "schedule.resume", "schedule.delete"]);
    } finally {
      await page.close();
    }
  });
});
