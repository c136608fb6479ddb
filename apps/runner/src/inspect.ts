// Validates a user's k6 script with the pinned k6 itself (`k6 inspect
// --execution-requirements`: the script parses, its init code runs, its options
// and scenarios are valid), answering with k6's own message when it is not.
// Init code is the user's, so k6 runs sandboxed here too (k6-sandbox.ts), with
// no network at all. The worker asks for it (POST /inspect) when a workload is saved and
// before a run, to know k6's own planned duration.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { durationSeconds } from "@opsbench/core";
import type { ScriptValidationResult } from "@opsbench/jobs/runner-protocol";
import { bwrapArgs, type K6SandboxSettings, refusal, STRICT_SANDBOX, sandboxEnv, sandboxProblem } from "./k6-sandbox";

/** Init code that loops forever must not hold a worker: k6 inspect gets this long. */
const INSPECT_TIMEOUT_MS = 15_000;

/** A logfmt-quoted value; escapes JSON does not know (k6 quotes Go-style, e.g. \x00) are kept as written. */
function unquote(quoted: string): string {
  try {
    return JSON.parse(`"${quoted}"`) as string;
  } catch {
    return quoted.replace(/\\(["\\])/g, "$1");
  }
}

/** k6 logs `time="..." level=error msg="..."`; keep the messages, with the temp path shown as script.js. */
export function k6ErrorMessage(stderr: string, dir: string): string {
  const messages: string[] = [];
  for (const line of stderr.split("\n")) {
    const m = /level=(?:error|fatal) msg="((?:[^"\\]|\\.)*)"/.exec(line);
    if (m) messages.push(unquote(m[1]!));
  }
  const text = (messages.length ? messages.join("\n") : stderr.trim()) || "k6 could not read the script";
  return text.replaceAll(`file://${dir}/`, "").replaceAll(`${dir}/`, "");
}

export async function validateScriptSource(
  k6Binary: string,
  source: string,
  opts: { sandbox?: K6SandboxSettings; timeoutMs?: number } = {},
): Promise<ScriptValidationResult> {
  const timeoutMs = opts.timeoutMs ?? INSPECT_TIMEOUT_MS;
  const problem = opts.sandbox?.off ? "turned off for a benchmark" : await sandboxProblem(k6Binary);
  if (problem && !(opts.sandbox ?? STRICT_SANDBOX).allowUnsandboxed) return { ok: false, message: refusal(problem).message };
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-validate-"));
  try {
    writeFileSync(path.join(dir, "script.js"), source);
    // Only what a run also gives it (with a placeholder address); none of the worker's own settings.
    const env = sandboxEnv(dir, { OPSBENCH_BASE_URL: "http://127.0.0.1:8080" });
    const command = [...(problem ? [] : bwrapArgs({ binary: k6Binary, workDir: dir, network: "none" })), k6Binary];
    const child = spawn(command[0]!, [...command.slice(1), "inspect", "--execution-requirements", "script.js"], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-20_000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (c) => resolve(c));
    }).finally(() => clearTimeout(timer));
    if (timedOut)
      return {
        ok: false,
        message: `k6 inspect did not finish within ${Math.round(timeoutMs / 1000)} s: does the script's init code wait or loop?`,
      };
    if (code !== 0) return { ok: false, message: k6ErrorMessage(stderr, dir) };
    const inspected = JSON.parse(stdout) as Record<string, unknown> & { totalDuration?: string; maxVUs?: number };
    const { totalDuration, maxVUs, ...all } = inspected;
    const options = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== null)); // k6 lists every option, mostly null
    return {
      ok: true,
      options,
      totalDurationSeconds: typeof totalDuration === "string" ? durationSeconds(totalDuration) : null,
      maxVUs: typeof maxVUs === "number" ? maxVUs : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
