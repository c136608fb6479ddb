// The worker's side of the runner (apps/runner): HTTP on the runner's unix socket. The worker
// never starts k6 itself; it hands the runner what a run needs (the script, the target's
// address, the deadline) and reads back k6's per-second aggregates as the runner streams them.
import http from "node:http";
import readline from "node:readline";
import {
  type K6Deadline,
  type K6Owned,
  type K6Result,
  type K6Status,
  runnerControlAnswer,
  runnerEvent,
  type RunnerHealth,
  runnerHealth,
  type RunnerK6Request,
  type ScriptValidationResult,
  scriptValidationResult,
} from "@opsbench/jobs";
import type { K6OutputLine, ProtectedPort, ScriptBundle } from "@opsbench/core";
import type { z } from "zod";

/** What a run's k6 is given, set once per worker: the host's runner and the worker's own limits. */
export interface K6Settings {
  runner: RunnerClient;
  /** The runner's k6 version, recorded on each run. */
  version: string;
  deadline: K6Deadline;
  /** Host names of the worker's Postgres and Redis: the runner blocks them for k6 where an address list can. */
  blockHosts: string[];
  /**
   * Whether the runner can send load off this machine: through its routed egress (k6's load network admits the
   * target's one pinned address and port), or, where it cannot sandbox, because it allows unsandboxed scripts
   * (OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS) (docs/security.md "Remote targets"). Absent: it cannot; such runs are
   * refused before anything is deployed.
   */
  remoteLoad?: boolean;
  /** The ports of opsbench's own services: no target may be on one (the worker refuses, and the runner again). */
  blockPorts?: ProtectedPort[];
}

/** k6 could not be sandboxed on the runner's host and unsandboxed runs are not allowed. */
export class RunnerRefused extends Error {}

/** The runner went away (it crashed, or its socket is gone): the run cannot go on. */
export class RunnerUnavailable extends Error {}

export class RunnerClient {
  constructor(readonly socketPath: string) {}

  private request(method: string, path: string, body?: unknown): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = http.request({ socketPath: this.socketPath, method, path, headers: { "content-type": "application/json" } }, resolve);
      req.on("error", (err) => reject(new RunnerUnavailable(`the k6 runner does not answer on ${this.socketPath}: ${err.message}`)));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  private async json<T>(schema: z.ZodType<T>, method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body);
    let text = "";
    for await (const chunk of res) text += chunk;
    if (res.statusCode !== 200) throw new Error(`the k6 runner refused ${method} ${path}: HTTP ${res.statusCode} ${text}`);
    return schema.parse(JSON.parse(text));
  }

  health(): Promise<RunnerHealth> {
    return this.json(runnerHealth, "GET", "/health");
  }

  /** `k6 inspect` of a script, on the runner (sandboxed, no network). */
  inspect(source: string, bundle: ScriptBundle = {}): Promise<ScriptValidationResult> {
    return this.json(scriptValidationResult, "POST", "/inspect", { source, ...bundle });
  }

  /** Reads or resumes a k6 started paused; null while its API does not answer yet. */
  async control(key: string, action: "status" | "resume"): Promise<K6Status | null> {
    const answer = await this.json(runnerControlAnswer, "POST", `/k6/${encodeURIComponent(key)}/control`, { action });
    if ("error" in answer) throw new Error(`k6 refused to ${action}: ${answer.error}`);
    return answer.status;
  }

  /** Asks the runner to stop a k6 gracefully; false when none of that name runs there. */
  async stop(key: string): Promise<boolean> {
    const res = await this.request("DELETE", `/k6/${encodeURIComponent(key)}`);
    res.resume();
    return res.statusCode === 202;
  }

  /**
   * Runs one k6 on the runner and streams its output lines to `onLine`. An abort stops k6
   * gracefully (its last seconds still arrive); a runner that goes away throws RunnerUnavailable.
   */
  async runK6(
    request: RunnerK6Request,
    opts: {
      signal: AbortSignal;
      onLine: (line: K6OutputLine) => void;
      onOwned?: (owned: K6Owned) => void;
      onLaunch?: (netns: string | null) => void;
    },
  ): Promise<K6Result> {
    const res = await this.request("POST", "/k6", request);
    if (res.statusCode !== 200) {
      let text = "";
      for await (const chunk of res) text += chunk;
      throw new Error(`the k6 runner refused the run: HTTP ${res.statusCode} ${text}`);
    }
    const stop = () => void this.stop(request.key).catch(() => {});
    if (opts.signal.aborted) stop();
    else opts.signal.addEventListener("abort", stop, { once: true });
    let lostBecause: string | null = null;
    res.on("aborted", () => (lostBecause = "its answer was cut off"));
    res.on("error", (err) => (lostBecause = err.message));
    try {
      for await (const raw of readline.createInterface({ input: res, crlfDelay: Infinity })) {
        if (!raw) continue;
        const event = runnerEvent.parse(JSON.parse(raw));
        switch (event.e) {
          case "line":
            opts.onLine(event.line);
            break;
          case "owned":
            opts.onOwned?.(event.owned);
            break;
          case "launched":
            opts.onLaunch?.(event.netns);
            break;
          case "result":
            return event.result;
          case "refused":
            throw new RunnerRefused(event.message);
          case "failed":
            throw new Error(event.message);
        }
      }
    } catch (err) {
      if (err instanceof RunnerRefused || !(err instanceof Error) || !/aborted|ECONNRESET|socket hang up/i.test(err.message)) throw err;
      lostBecause = err.message;
    } finally {
      opts.signal.removeEventListener("abort", stop);
    }
    throw new RunnerUnavailable(`the k6 runner stopped during the load (${lostBecause ?? "its answer ended without k6's result"})`);
  }
}
