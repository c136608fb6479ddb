// Shared by the integration tests: real database, real queue, real worker.
import { spawn } from "node:child_process";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { inject } from "vitest";
import type { TargetInput, WorkloadInput } from "@opsbench/core";
import { createDb, defaultWorkspaceId, loadRunView, workspaceScope, type Db, type RunView } from "@opsbench/db";
import { createRunQueue } from "@opsbench/jobs";

export async function openTestStack() {
  const db = createDb(inject("databaseUrl"), { max: 3 });
  const queue = createRunQueue(inject("redisUrl"));
  const scope = workspaceScope(db, await defaultWorkspaceId(db));
  return {
    db,
    queue,
    scope,
    close: async () => {
      await queue.close();
      await db.$disconnect();
    },
  };
}

export async function waitForFinal(db: Db, runId: string, timeoutMs = 150_000): Promise<RunView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const view = await loadRunView(db, runId);
    if (["SUCCEEDED", "FAILED", "ABORTED"].includes(view.status)) return view;
    if (Date.now() > until) throw new Error(`run ${runId} still ${view.status} after ${timeoutMs} ms`);
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

/** A short ramping-VU load: up to `vus` over 2 s, held for `holdSeconds`. */
export const shortRamp = (
  name: string,
  opts: { vus?: number; holdSeconds?: number; thresholds?: Record<string, string[]>; path?: string } = {},
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
    thresholds: opts.thresholds ?? {},
  },
});

/** fetch with the test owner's API token (tests/test-identity.ts), for the API routes that need an account. */
export function apiFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) headers.set("authorization", `Bearer ${inject("testIdentity").token}`);
  return fetch(url, { ...init, headers });
}

/** A browser context's state with the test owner signed in on the test stack's web app. */
export function signedInState(webUrl = inject("webUrl")) {
  const { name, value } = inject("testIdentity").sessionCookie;
  const domain = new URL(webUrl).hostname;
  return {
    cookies: [{ name, value, domain, path: "/", expires: -1, httpOnly: true, secure: false, sameSite: "Lax" as const }],
    origins: [],
  };
}

/**
 * Debian's Chromium driven by playwright-core, with the flags a closed network needs (never a downloaded browser).
 * Its new pages and contexts are signed in as the test owner unless `signedIn: false` (or a storageState is given).
 */
export async function launchBrowser({ signedIn = true }: { signedIn?: boolean } = {}): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  if (!signedIn) return browser;
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = (options = {}) => newContext({ storageState: signedInState(), ...options });
  browser.newPage = (options = {}) => newPage({ storageState: signedInState(), ...options });
  return browser;
}

const opsbenchBin = path.resolve(import.meta.dirname, "../packages/cli/bin/opsbench.js");

/** Runs the real `opsbench` command against the test stack; resolves with its exit code and output. */
export function runOpsbench(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runOpsbenchWith({}, ...args);
}

/** runOpsbench with extra environment variables (e.g. OPSBENCH_URL and OPSBENCH_TOKEN to use the server). */
export function runOpsbenchWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [opsbenchBin, ...args], {
      env: { ...process.env, DATABASE_URL: inject("databaseUrl"), REDIS_URL: inject("redisUrl"), ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
