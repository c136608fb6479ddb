// Validates a user's k6 script with the pinned k6 itself (`k6 inspect
// --execution-requirements`: the script parses, its init code runs, its options
// and scenarios are valid), answering with k6's own message when it is not.
// Init code is the user's, so k6 runs sandboxed here too (k6-sandbox.ts), with
// no network at all. The worker asks for it (POST /inspect) when a workload is saved and
// before a run, to know k6's own planned duration.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { durationSeconds, type ScriptBundle } from "@opsbench/core";
import { SCRIPT_FOLDER, writeScriptFiles } from "./script-files";
import type { ScriptValidationResult } from "@opsbench/jobs/runner-protocol";
import {
  bwrapArgs,
  DEFAULT_K6_RESOURCES,
  INSPECT_OUTPUT_LIMIT_BYTES,
  type K6SandboxSettings,
  prlimitProblem,
  refusal,
  resourceEnv,
  resourceLimitWatcher,
  resourcePrefix,
  STRICT_SANDBOX,
  sandboxEnv,
  sandboxProblem,
} from "./k6-sandbox";

/** What a script's options may weigh once inspected (they are kept with a validation result, in Redis, and on runs). */
export const INSPECTED_OPTIONS_LIMIT_BYTES = 256 * 1024;

/** The placeholder environment of a script checked outside a run (when a workload is saved). */
export const PLACEHOLDER_RUN_ENV = { OPSBENCH_BASE_URL: "http://127.0.0.1:8080" };

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
  opts: {
    sandbox?: K6SandboxSettings;
    timeoutMs?: number;
    /** The environment the script sees (__ENV): a run's own (what k6 run will get), else a placeholder address. */
    env?: Record<string, string>;
    /** The script's entry path and other files (a k6 project or archive). */
    bundle?: ScriptBundle;
  } = {},
): Promise<ScriptValidationResult> {
  const timeoutMs = opts.timeoutMs ?? INSPECT_TIMEOUT_MS;
  const settings = opts.sandbox ?? STRICT_SANDBOX;
  const resources = settings.resources ?? DEFAULT_K6_RESOURCES;
  const problem = settings.off ? "turned off for a benchmark" : await sandboxProblem(k6Binary);
  if (problem && !settings.allowUnsandboxed) return { ok: false, message: refusal(problem).message };
  const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-validate-"));
  try {
    // k6 sees the script's folder only, from inside it: its messages name the files as the user does (script.js).
    const root = path.join(dir, SCRIPT_FOLDER);
    const entry = path.relative(SCRIPT_FOLDER, writeScriptFiles(dir, source, opts.bundle));
    // Only what a run also gives it (the run's own, or a placeholder address); none of the worker's own settings.
    const env = { ...sandboxEnv(root, opts.env ?? PLACEHOLDER_RUN_ENV), ...resourceEnv(resources.inspectMemoryMb, resources) };
    const limited = !(await prlimitProblem());
    const command = [
      ...(limited ? resourcePrefix(resources.inspectMemoryMb, resources) : []),
      ...(problem ? [] : bwrapArgs({ binary: k6Binary, workDir: root, network: "none" })),
      k6Binary,
    ];
    const child = spawn(command[0]!, [...command.slice(1), "inspect", "--execution-requirements", entry], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const killAll = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let tooLong = false;
    let stderr = "";
    const limit = resourceLimitWatcher(resources.inspectMemoryMb, resources, "OPSBENCH_K6_INSPECT_MEMORY_MB");
    child.stdout.on("data", (d: Buffer) => {
      if (tooLong) return;
      stdoutBytes += d.length;
      if (stdoutBytes > INSPECT_OUTPUT_LIMIT_BYTES) {
        tooLong = true;
        chunks.length = 0;
        killAll();
      } else chunks.push(d);
    });
    child.stderr.on("data", (d: Buffer) => {
      limit.feed(d.toString());
      stderr = (stderr + d).slice(-20_000);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killAll();
    }, timeoutMs);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (c) => resolve(c));
    }).finally(() => clearTimeout(timer));
    if (tooLong)
      return {
        ok: false,
        message: `k6 inspect's output exceeded ${INSPECT_OUTPUT_LIMIT_BYTES / (1 << 20)} MiB: the script's options are too large`,
      };
    if (limit.hit) return { ok: false, message: `k6 inspect was stopped: ${limit.hit}` };
    if (timedOut)
      return {
        ok: false,
        message: `k6 inspect did not finish within ${Math.round(timeoutMs / 1000)} s: does the script's init code wait or loop?`,
      };
    if (code !== 0) return { ok: false, message: k6ErrorMessage(stderr, root).slice(0, 4000) };
    const inspected = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> & {
      totalDuration?: string;
      maxVUs?: number;
    };
    const { totalDuration, maxVUs, ...all } = inspected;
    const options = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== null)); // k6 lists every option, mostly null
    const weight = Buffer.byteLength(JSON.stringify(options));
    if (weight > INSPECTED_OPTIONS_LIMIT_BYTES)
      return {
        ok: false,
        message: `the script's options take ${Math.ceil(weight / 1024)} KiB once k6 derived them; at most ${INSPECTED_OPTIONS_LIMIT_BYTES / 1024} KiB are kept`,
      };
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
