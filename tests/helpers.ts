// Shared by the services tests: the file's own database, queue and
// worker (tests/file-services.ts), real k6, real processes.
import { spawn } from "node:child_process";
import path from "node:path";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { isFinalRunStatus, type TargetInput, type WorkloadInput } from "@opsbench/core";
import { createDb, defaultWorkspaceId, loadRunView, workspaceScope, type Db, type RunView } from "@opsbench/db";
import { createRunQueue } from "@opsbench/jobs";
import { fileServices, useWorker } from "./file-services";

/** The test file's own database (a clone of the migrated template). */
export const testDatabaseUrl = () => fileServices().databaseUrl;
/** The test file's Redis, with the key prefix of its queues. */
export const testRedisUrl = () => fileServices().redisUrl;
/** OPSBENCH_SECRET_KEY of the file's web app and worker (they seal and open credentials with it). */
export const testSecretKey = () => fileServices().secretKey;
/** The test file's web app (started before each file in vitest.config.ts's `webFiles`). */
export function testWebUrl(): string {
  const web = fileServices().web;
  if (!web) throw new Error("this test file has no web app: list it under browser in vitest.config.ts");
  return web.url;
}

/**
 * The file's database, run queue and default workspace, with its worker started (in this process).
 * `worker: false` for a test that executes runs in its own process: the worker's
 * reconciler would otherwise enqueue its job-less QUEUED runs and execute them too.
 * `worker: "process"` for a test of the worker's process itself (its environment, its signals).
 */
export async function openTestStack({ worker = true }: { worker?: boolean | "process" } = {}) {
  if (worker) await useWorker({ asProcess: worker === "process" });
  const db = createDb(testDatabaseUrl(), { max: 3 });
  const queue = createRunQueue(testRedisUrl());
  const scope = workspaceScope(db, await defaultWorkspaceId(db));
  const close = async () => {
    await queue.close();
    await db.$disconnect();
  };
  return { db, queue, scope, close };
}

export async function waitForFinal(db: Db, runId: string, timeoutMs = 150_000): Promise<RunView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    // The status alone while it runs: the whole view of a running run merges every second's histograms so far.
    const { status } = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
    if (isFinalRunStatus(status)) return loadRunView(db, runId);
    if (Date.now() > until) throw new Error(`run ${runId} still ${status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Two local replicas of Taewa. */
export const taewaTarget = (name: string, extra: Partial<Extract<TargetInput, { kind: "local-service" }>["spec"]> = {}): TargetInput => ({
  name,
  kind: "local-service",
  spec: { app: "cpu-loop/node-http", replicas: 2, env: {}, startTimeoutMs: 10_000, ...extra },
});

/**
 * A short ramping-VU load: up to `vus` over 2 s, held for `holdSeconds`. Each VU pauses `thinkTime` (100 ms) after
 * each request, so a run sends tens of requests a second, not as many as the machine can: without a pause the VUs
 * take every core for the run's length, and the files beside it wait. `thinkTime: null` for a test that needs the
 * target saturated.
 */
export const shortRamp = (
  name: string,
  opts: { vus?: number; holdSeconds?: number; thresholds?: Record<string, string[]>; path?: string; thinkTime?: string | null } = {},
): WorkloadInput => ({
  name,
  spec: {
    kind: "ramping-vus",
    startVUs: 0,
    stages: [
      { duration: "2s", target: opts.vus ?? 5 },
      { duration: `${opts.holdSeconds ?? 6}s`, target: opts.vus ?? 5 },
    ],
    gracefulRampDown: "2s",
    requestTimeout: "10s",
    requests: [{ name: "taewa", method: "GET", path: opts.path ?? "/?n=2000", headers: {} }],
    ...(opts.thinkTime === null ? {} : { thinkTime: opts.thinkTime ?? "100ms" }),
    thresholds: opts.thresholds ?? {},
  },
});

/**
 * Waits until the page's React has attached its handlers (`window.__opsbenchHydrated`, components/hydration-mark.tsx),
 * reloading a page that lost a script or is not hydrated after 30 s; false when that did not happen within `timeoutMs`. It never
 * throws: a test goes on to wait for what it checks. Pages of a launchBrowser browser do it after each goto and reload.
 * Why the reload: Chromium fails its requests in flight with net::ERR_NETWORK_CHANGED whenever the machine's network
 * changes, and every sandboxed run of the suite adds and removes a network namespace's interfaces. A page whose
 * script chunk failed so never hydrates (seen: compare-cost's chart drew nothing in 90 s); loaded again, it does.
 */
export async function waitForHydration(page: Page, timeoutMs = 90_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  const reload = plainReload.get(page) ?? page.reload.bind(page);
  let loadedAt = navigatedAt.get(page) ?? Date.now();
  for (;;) {
    const hydrated = await page
      .waitForFunction(() => (window as { __opsbenchHydrated?: boolean }).__opsbenchHydrated === true, undefined, {
        timeout: Math.max(1, Math.min(1_000, until - Date.now())),
        polling: 250, // not per animation frame: a starved page may draw few of them
      })
      .then(
        () => true,
        () => false,
      );
    // A script lost to a network change never runs, and the part of the page it holds never hydrates, though the rest
    // may (seen: a run page hydrated but for its live status): load again now. Else a page may just be slow.
    const lostScript = (scriptLostAt.get(page) ?? 0) >= loadedAt;
    if ((hydrated && !lostScript) || Date.now() >= until) return hydrated && !lostScript;
    if (lostScript || Date.now() - loadedAt >= 30_000) {
      loadedAt = Date.now();
      await reload({ timeout: Math.max(1, until - Date.now()) }).catch(() => null);
    }
  }
}

/**
 * Clicks `button` until `shows` is visible. A click before React has attached the page's handlers does nothing (a
 * busy machine hydrates seconds after the load event), so it waits for hydration first; and it clicks again only
 * while `shows` is hidden, so a toggle that opened late is not closed by the next click.
 */
export async function clickUntilVisible(button: Locator, shows: Locator, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  await waitForHydration(button.page(), timeoutMs / 2);
  for (;;) {
    if (!(await shows.isVisible())) await button.click();
    try {
      await shows.waitFor({ state: "visible", timeout: 10_000 });
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
    }
  }
}

/**
 * Debian's Chromium headless shell driven by playwright-core, with the flags a closed network needs (never a downloaded
 * browser). The shell, not the full browser in headless mode: the same engine at about a third of the CPU (measured
 * side by side: 15 page loads and screenshots took 2.8 s of CPU against 8.0 s), and browser files are most of the suite.
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium-headless-shell",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  // Every page it opens navigates steadily: again on a network change, and hydrated before the test acts (steady).
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => steady(await newPage(...args));
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.on("page", steady);
    return context;
  };
  return browser;
}

/** Each steady page's own reload, for waitForHydration's reloads (the page's reload waits for hydration itself). */
const plainReload = new WeakMap<Page, Page["reload"]>();
/** When each steady page's last goto or reload began, and when it last lost a script to a network change. */
const navigatedAt = new WeakMap<Page, number>();
const scriptLostAt = new WeakMap<Page, number>();
/** The last document request of each steady page that failed: when, and Chromium's reason (net::ERR_...). */
const documentFailed = new WeakMap<Page, { at: number; reason: string }>();

/**
 * Makes a page's goto and reload steady, as a person would use them:
 * - Chromium fails every request in flight with net::ERR_NETWORK_CHANGED when the machine's network changes, which
 *   each sandboxed run does (it adds and removes a network namespace's interfaces; docs/testing.md): a navigation
 *   caught in one is made again (up to six times in all), and a page that lost a script to one is loaded again
 *   (waitForHydration). Any other failure is the test's.
 * - A page of the web app resolves once hydrated (waitForHydration): on a busy machine it hydrates seconds after its
 *   load event, and a click or a check before that is lost (seen: compare.e2e's four checked runs made no groups).
 */
function steady(page: Page): Page {
  if (plainReload.has(page)) return page; // browser.newPage opens its page in a context of newContext's
  const goto = page.goto.bind(page);
  const reload = page.reload.bind(page);
  plainReload.set(page, reload);
  page.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText ?? "";
    if (request.resourceType() === "document") documentFailed.set(page, { at: Date.now(), reason });
    if (request.resourceType() === "script" && reason.includes("ERR_NETWORK_CHANGED")) scriptLostAt.set(page, Date.now());
  });
  const navigate = async <T>(how: () => Promise<T>) => {
    navigatedAt.set(page, Date.now());
    return hydratedIfApp(page, await againOnNetworkChange(page, how));
  };
  page.goto = (url, options) => navigate(() => goto(url, options));
  page.reload = (options) => navigate(() => reload(options));
  return page;
}

/**
 * Makes the navigation again (six attempts in all, a pause growing by half a second before each) when it failed at the
 * network: a network change Playwright names, a load that ended on Chromium's error page ("interrupted by another
 * navigation to chrome-error://..."), or one the page itself replaced with a load of the same address. Six, with
 * pauses: network changes come in bursts while several sandboxed runs start at once, and a quiet fresh clone once saw
 * three navigations in a row replaced, in two files (accessibility.e2e and studies.e2e). Any other failure is thrown
 * with Chromium's reason for the document's failed request, when it gave one.
 */
async function againOnNetworkChange<T>(page: Page, navigate: () => Promise<T>): Promise<T> {
  const attempts = 6;
  for (let attempt = 1; ; attempt++) {
    const began = Date.now();
    try {
      return await navigate();
    } catch (err) {
      const failed = documentFailed.get(page);
      const reason = failed && failed.at >= began ? failed.reason : "";
      // The error page names no reason (seen in three fresh clones); a server that is down still fails every attempt.
      const atNetwork = /ERR_NETWORK_CHANGED|chrome-error:\/\/chromewebdata/.test(`${err}${reason}`);
      // The page loaded the same address again itself before its load event (seen in fresh clones: journey's viewer
      // going to "/"). Likely Next's router reloading after it lost a script to a network change; not confirmed.
      if (attempt < attempts && (atNetwork || sameAddressAgain(`${err}`))) {
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
        continue;
      }
      // Playwright's message may not say why the document failed; Chromium's reason does.
      if (reason && err instanceof Error && !err.message.includes(reason)) err.message += ` (the document's request failed: ${reason})`;
      throw err;
    }
  }
}

/** Whether a navigation failed as "interrupted by another navigation" to the very address it was going to. */
function sameAddressAgain(message: string): boolean {
  const m = /Navigation to "([^"]+)" is interrupted by another navigation to "([^"]+)"/.exec(message);
  return m !== null && m[1] === m[2];
}

/** Waits for hydration when the document is one of the web app's pages (it loads Next's scripts); JSON and others pass. */
async function hydratedIfApp<T>(page: Page, response: T): Promise<T> {
  const isApp = await page.evaluate(() => document.querySelector('script[src*="/_next/static/"]') !== null).catch(() => false);
  if (isApp) await waitForHydration(page, 60_000);
  return response;
}

/**
 * The `opsbench` command as the tests run it: the CLI's bundle (tests/setup/node-bundles.ts: the same sources, on half
 * the CPU a start), or bin/opsbench.js where there is none. apps/cli/test/cli-help.test.ts runs bin/opsbench.js too.
 */
export function opsbenchCommand(): string {
  const bundles = process.env.OPSBENCH_NODE_BUNDLES;
  return bundles ? path.join(bundles, "cli.mjs") : path.resolve(import.meta.dirname, "../apps/cli/bin/opsbench.js");
}

/** Runs the real `opsbench` command against the file's database and Redis; resolves with its exit code and output. */
export function runOpsbench(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runOpsbenchWith({}, ...args);
}

/** runOpsbench with extra environment variables (e.g. OPSBENCH_URL and OPSBENCH_TOKEN to use the server). */
export function runOpsbenchWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runOpsbenchIn(process.cwd(), env, ...args);
}

/** runOpsbenchWith from another folder (a team's repository, as CI runs the CLI in it). */
export function runOpsbenchIn(
  cwd: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [opsbenchCommand(), ...args], {
      cwd,
      env: { ...process.env, DATABASE_URL: testDatabaseUrl(), REDIS_URL: testRedisUrl(), ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
export { useWorker } from "./file-services";
