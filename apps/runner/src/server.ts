// The runner's API, HTTP on a unix socket only the worker shares (packages/jobs runner-protocol.ts):
//   GET    /health             k6's version, whether the sandbox works, this host's id
//   POST   /inspect            {source} -> what `k6 inspect` makes of a script (sandboxed, no network)
//   POST   /k6                 runs one k6; the answer streams its events, one JSON line each
//   POST   /k6/<key>/control   {action: status|resume} for a k6 started paused
//   DELETE /k6/<key>           stops a k6 gracefully (its results still stream back)
// A caller that goes away (a worker killed mid-run) stops its k6: nothing runs for nobody.
import { createHash } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import {
  executionSegmentArgs,
  runnerControlRequest,
  type RunnerEvent,
  type RunnerHealth,
  runnerInspectRequest,
  runnerK6Request,
  runnerKey,
} from "@opsbench/jobs/runner-protocol";
import type { z } from "zod";
import { runK6 } from "./k6-process";
import { K6Control } from "./k6-control";
import { freePort, routedEgressProblem } from "@opsbench/host";
import { type K6Resources, type K6SandboxSettings, SandboxRefused, sandboxProblem } from "./k6-sandbox";
import { validateScriptSource } from "./inspect";
import type { Logger } from "./logger";
import { loadNetworkNotes } from "./sweep-load-networks";

export interface RunnerSettings {
  k6Binary: string;
  k6Version: string;
  /** k6Binary is a stock k6 (OPSBENCH_K6_BINARY): its JSON output is folded here into the engine's lines. */
  stockK6?: boolean;
  workDir: string;
  /** This runner's own notes (the load networks it made), apart from any other runner's on the machine. */
  stateDir: string;
  hostId: string;
  allowUnsandboxed: boolean;
  blockedRanges: string[];
  /** Memory, thread and output limits of each k6 and k6 inspect (DEFAULT_K6_RESOURCES unless given). */
  resources?: K6Resources;
  log: Logger;
}

interface Running {
  abort: AbortController;
  control: K6Control | null;
  done: Promise<void>;
}

const MAX_BODY_BYTES = 6_000_000;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the request is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "the request body is not JSON");
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new HttpError(400, r.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "));
  return r.data;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export function createRunnerServer(settings: RunnerSettings) {
  const { log } = settings;
  const running = new Map<string, Running>();
  const notes = loadNetworkNotes(settings.stateDir);
  const sandbox: K6SandboxSettings = {
    allowUnsandboxed: settings.allowUnsandboxed,
    blockedRanges: settings.blockedRanges,
    backingHosts: [],
    ...(settings.resources ? { resources: settings.resources } : {}),
  };

  async function health(): Promise<RunnerHealth> {
    const problem = await sandboxProblem(settings.k6Binary);
    return {
      k6Version: settings.k6Version,
      sandboxProblem: problem,
      allowUnsandboxed: settings.allowUnsandboxed,
      routedEgress: !problem && !routedEgressProblem(),
      hostId: settings.hostId,
    };
  }

  async function runOne(req: http.IncomingMessage, res: http.ServerResponse) {
    const body = parse(runnerK6Request, await readJson(req));
    if (running.has(body.key)) throw new HttpError(409, `a k6 named ${body.key} is already running here`);
    const abort = new AbortController();
    let finished!: () => void;
    const entry: Running = { abort, control: null, done: new Promise((r) => (finished = r)) };
    running.set(body.key, entry);
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    // The caller went away before the end (a worker killed mid-run): stop its k6 now.
    res.on("close", () => {
      if (!res.writableFinished) abort.abort(new Error("the worker that asked for this k6 went away"));
    });
    const send = (e: RunnerEvent) => {
      if (!res.destroyed) res.write(`${JSON.stringify(e)}\n`);
    };
    const workDir = path.join(settings.workDir, body.key);
    const noted = new Set<string>();
    try {
      const port = body.paused ? await freePort() : 0;
      const result = await runK6({
        binary: settings.k6Binary,
        workDir,
        script: body.script,
        bundle: { entry: body.entry, files: body.files },
        env: body.env,
        // The worker's admitted address: pinned as if resolved here (and judged the same way), never looked up again.
        ...(body.pinnedAddress ? { resolveHost: async () => [body.pinnedAddress!] } : {}),
        signal: abort.signal,
        ...(settings.stockK6 ? { stockK6: true } : {}),
        onLine: (line) => send({ e: "line", line }),
        sandbox: { ...sandbox, backingHosts: body.blockHosts },
        blockPorts: body.blockPorts,
        limits: body.limits,
        ...(body.segment ? { generators: body.segment.count } : {}),
        ...(body.deadline ? { deadline: body.deadline } : {}),
        extraArgs: [
          ...(body.segment ? executionSegmentArgs(body.segment.index, body.segment.count) : []),
          ...(body.keepSamplesAs ? ["--out", "json=k6-samples.json"] : []),
        ],
        onOwned: (owned) => {
          if (owned.network && !noted.has(owned.network.ns)) {
            noted.add(owned.network.ns);
            notes.add(owned.network.ns);
          }
          send({ e: "owned", owned });
        },
        ...(body.paused
          ? {
              control: {
                port,
                onLaunch: (netns: string | null) => {
                  entry.control = new K6Control(port, netns);
                  send({ e: "launched", netns });
                },
              },
            }
          : {}),
      });
      if (body.keepSamplesAs) keepSamples(workDir, path.join(settings.workDir, "k6-samples"), body.keepSamplesAs);
      send({ e: "result", result });
      log.info({ key: body.key, exitCode: result.exitCode }, "k6 finished");
    } catch (err) {
      const message = (err as Error).message;
      send({ e: err instanceof SandboxRefused ? "refused" : "failed", message });
      log.warn({ key: body.key, err: message }, "k6 did not run to its end");
    } finally {
      // runK6 removed the network; the note goes with it.
      for (const ns of noted) notes.remove(ns);
      entry.control?.close();
      running.delete(body.key);
      rmSync(workDir, { recursive: true, force: true });
      finished();
      res.end();
    }
  }

  async function control(key: string, req: http.IncomingMessage, res: http.ServerResponse) {
    const { action } = parse(runnerControlRequest, await readJson(req));
    const entry = running.get(key);
    if (!entry) throw new HttpError(404, `no k6 named ${key} runs here`);
    if (!entry.control) return sendJson(res, 200, { status: null });
    if (action === "status") return sendJson(res, 200, { status: await entry.control.status() });
    try {
      await entry.control.resume();
      sendJson(res, 200, { status: await entry.control.status() });
    } catch (err) {
      sendJson(res, 200, { error: (err as Error).message });
    }
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://runner");
    const parts = url.pathname.split("/").filter(Boolean);
    if (req.method === "GET" && url.pathname === "/health") return sendJson(res, 200, await health());
    if (req.method === "POST" && url.pathname === "/inspect") {
      const { source, ...bundle } = parse(runnerInspectRequest, await readJson(req));
      return sendJson(res, 200, await validateScriptSource(settings.k6Binary, source, { sandbox, bundle }));
    }
    if (req.method === "POST" && url.pathname === "/k6") return runOne(req, res);
    if (parts[0] === "k6" && parts.length >= 2) {
      const key = parse(runnerKey, decodeURIComponent(parts[1]!));
      if (req.method === "POST" && parts[2] === "control" && parts.length === 3) return control(key, req, res);
      if (req.method === "DELETE" && parts.length === 2) {
        const entry = running.get(key);
        if (!entry) throw new HttpError(404, `no k6 named ${key} runs here`);
        entry.abort.abort(new Error("stopped on request"));
        return sendJson(res, 202, { stopping: key });
      }
    }
    throw new HttpError(404, `no such route: ${req.method} ${url.pathname}`);
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      if (status === 500) log.error({ err }, "runner request failed");
      if (!res.headersSent) sendJson(res, status, { error: (err as Error).message });
      else res.end();
    });
  });

  return {
    server,
    /** Removes the load networks a killed predecessor left behind (call before listening). */
    sweep: () => notes.sweep(log),
    /** Stops every k6 (gracefully) and waits for them to end. */
    async stopAll() {
      const all = [...running.values()];
      for (const r of all) r.abort.abort(new Error("the runner is stopping"));
      await Promise.all(all.map((r) => r.done));
    },
    running: () => [...running.keys()],
  };
}

export type RunnerServer = ReturnType<typeof createRunnerServer>;

/** Listens on a unix socket (replacing a stale one), readable by this user and, when given, a group. */
export async function listenOnSocket(server: http.Server, socketPath: string, gid?: number): Promise<void> {
  mkdirSync(path.dirname(socketPath), { recursive: true });
  if (existsSync(socketPath)) {
    // A live runner answers; a stale socket file of a dead one does not.
    const alive = await new Promise<boolean>((resolve) => {
      const c = net.connect(socketPath, () => {
        c.end();
        resolve(true);
      });
      c.on("error", () => resolve(false));
    });
    if (alive) throw new Error(`another runner listens on ${socketPath}`);
    rmSync(socketPath, { force: true });
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  if (gid !== undefined) {
    chownSync(socketPath, process.getuid?.() ?? 0, gid);
    chmodSync(socketPath, 0o660);
  } else chmodSync(socketPath, 0o600);
}

/** A runner's own state folder: one per socket, so runners of several installations on a machine keep apart. */
export function stateDirOf(workDir: string, socketPath: string): string {
  return path.join(workDir, ".runner", createHash("sha256").update(path.resolve(socketPath)).digest("hex").slice(0, 12));
}

function keepSamples(workDir: string, into: string, name: string) {
  const file = path.join(workDir, "k6-samples.json");
  if (!existsSync(file)) return;
  mkdirSync(into, { recursive: true });
  renameSync(file, path.join(into, name));
}
