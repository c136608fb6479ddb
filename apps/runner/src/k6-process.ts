// Runs the pinned k6 as a child process and streams the opsbench output's
// per-second aggregates from file descriptor 3 (a pipe: nothing touches disk).
import { spawn, spawnSync } from "node:child_process";
import { constants as fsConstants, mkdirSync, openSync, readFileSync, writeFileSync, rmSync, existsSync, statSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import {
  HISTOGRAM_ALPHA,
  inspectedOverLimits,
  k6JsonStream,
  k6OutputLine,
  type K6OutputLine,
  type K6RunLimits,
  planOverLimits,
  type ProtectedPort,
  protectedPortVerdict,
  type ValidityFlag,
  vusOverPlan,
  type ScriptBundle,
} from "@opsbench/core";
import type { K6Deadline, K6Owned, K6Result } from "@opsbench/jobs/runner-protocol";
import {
  CLOCK_TICKS_PER_SECOND,
  createLoadNetwork,
  groupCpuTicks,
  isLoopbackHost,
  processStartTicks,
  removeLoadNetwork,
  routedEgressProblem,
  stopGroup,
  type LoadNetwork,
} from "@opsbench/host";
import {
  blockArgs,
  bwrapArgs,
  DEFAULT_K6_RESOURCES,
  type K6SandboxSettings,
  OUTPUT_LINE_LIMIT_BYTES,
  prlimitProblem,
  refusal,
  resourceEnv,
  resourceLimitWatcher,
  resourcePrefix,
  SandboxRefused,
  STRICT_SANDBOX,
  sandboxEnv,
  sandboxProblem,
  summaryLimitWatcher,
  unsandboxedFlag,
} from "./k6-sandbox";
import { systemEnv } from "./env";
import { validateScriptSource } from "./inspect";
import { ARTIFACT_LIMITS, collectArtifacts, listedPaths, writeScriptFiles } from "./script-files";
import { type PinnedTarget, pinTarget, routedHostProblem } from "./routed-target";

export function k6Version(binary: string): string {
  const r = spawnSync(binary, ["version"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cannot run k6 at ${binary}: ${r.stderr || r.error?.message}`);
  return /v\d+\.\d+\.\d+/.exec(r.stdout)?.[0] ?? r.stdout.trim();
}

/**
 * Stops what one k6 run made (never a process that reused its pid) and removes its load network.
 * Returns what was left.
 */
export async function stopOwnedK6(owned: K6Owned): Promise<string[]> {
  if (owned.pid !== null) await stopGroup(owned.pid, 2000, owned.startTicks);
  return owned.network ? removeLoadNetwork(owned.network) : [];
}

export async function runK6(opts: {
  binary: string;
  workDir: string;
  script: string;
  /** The script's entry path and its other files (a k6 project or a k6 archive): written beside it. */
  bundle?: ScriptBundle;
  env: Record<string, string>;
  signal: AbortSignal;
  onLine: (line: K6OutputLine) => void;
  /** False runs k6 bare, without opsbench's output (benchmarks compare the two). */
  opsbenchOutput?: boolean;
  /**
   * The binary is a stock k6 (the admin's OPSBENCH_K6_BINARY), not opsbench-engine: its results come from k6's own
   * `--out json=` into a FIFO in its folder, folded here into the engine's per-second lines (no plan line: the VUs
   * are held to what inspect said and the run's limit).
   */
  stockK6?: boolean;
  /** More k6 arguments, e.g. another --out for benchmarks. */
  extraArgs?: string[];
  /** CPUs to pin k6 to (taskset syntax, e.g. "0"), keeping the load generator off the target's cores. */
  cpuList?: string;
  /** How k6 is confined; strict (sandbox or refuse) unless given. */
  sandbox?: K6SandboxSettings;
  /** The hard stop; none unless given. */
  deadline?: K6Deadline;
  /** Ports of opsbench's own services: a target on one is refused before anything starts. */
  blockPorts?: ProtectedPort[];
  /** The run's limits: inspect (with the run's env) and k6 run's own plan must stay within them. */
  limits?: K6RunLimits | null;
  /** The run's generators when this k6 is one of them: its share of maxVUs bounds its requests in flight. */
  generators?: number;
  /** How a remote target's host name is resolved (once, before anything is made); the system resolver unless given. */
  resolveHost?: (host: string) => Promise<string[]>;
  /** Told what this k6 owns as soon as it exists (its network, then its process). */
  onOwned?: (owned: K6Owned) => void;
  /**
   * Start k6 paused, with its REST API on 127.0.0.1:port (inside its load network when sandboxed), to be
   * resumed by the caller (a load generator of a run on several). `onLaunch` gets that network's name, or null.
   */
  control?: { port: number; onLaunch: (netns: string | null) => void };
}): Promise<K6Result> {
  // Before anything is made: never a port of opsbench's own services, whatever the target says.
  if (opts.env.OPSBENCH_BASE_URL) {
    const hit = protectedPortVerdict(opts.env.OPSBENCH_BASE_URL, opts.blockPorts ?? []);
    if (hit) throw new SandboxRefused(hit.message);
  }
  mkdirSync(opts.workDir, { recursive: true });
  const summaryPath = path.join(opts.workDir, "k6-summary.json");
  const scriptPath = path.join(opts.workDir, writeScriptFiles(opts.workDir, opts.script, opts.bundle));
  rmSync(summaryPath, { force: true });

  const sandbox = opts.sandbox ?? STRICT_SANDBOX;
  const launch = await prepareLaunch(opts.binary, opts.workDir, opts.env, sandbox, opts.blockPorts ?? [], opts.resolveHost);
  const network = launch.network ? { ns: launch.network.ns, table: launch.network.table } : null;
  if (network) opts.onOwned?.({ pid: null, startTicks: null, network });
  try {
    // k6 inspect with the run's own environment (what the script will see in __ENV inside its sandbox): the plan
    // that sets the deadline, and the first check against the run's limits.
    const limits = opts.limits ?? null;
    const inspected =
      opts.deadline || limits
        ? await validateScriptSource(opts.binary, opts.script, {
            sandbox,
            env: launch.runEnv,
            ...(opts.bundle ? { bundle: opts.bundle } : {}),
          })
        : null;
    if (limits && inspected && !inspected.ok)
      throw new Error(`k6 inspect of the script, with the run's environment, failed: ${inspected.message}`);
    const over = limits && inspected?.ok ? inspectedOverLimits(inspected, limits) : [];
    if (over.length) return notStarted(`refused before k6 started: ${over.join("; ")}`, launch.unsandboxed);
    const deadlineMs = opts.deadline ? deadlineOf(inspected, opts.deadline) : null;
    opts.control?.onLaunch(launch.network?.ns ?? null);
    const before = listedPaths(opts.workDir);
    const jsonFifo = opts.stockK6 && opts.opsbenchOutput !== false ? makeFifo(path.join(opts.workDir, K6_JSON_FIFO)) : null;
    const result = await superviseK6(
      {
        ...opts,
        command: [
          // taskset first: the sandbox shows k6 nothing but its own binary, and the affinity is inherited.
          ...(opts.cpuList ? ["taskset", "-c", opts.cpuList] : []),
          ...launch.prefix,
          opts.binary,
          "run",
          "--no-color",
          "--quiet",
          // No REST API on localhost:6565 (it would let anyone on the machine steer the test), unless the
          // caller steers it: then paused, on a port inside k6's own network namespace where it has one.
          ...(opts.control ? ["--address", `127.0.0.1:${opts.control.port}`, "--paused"] : ["--address", ""]),
          ...launch.blockArgs,
          ...launch.configArgs,
          ...(opts.opsbenchOutput === false ? [] : jsonFifo ? ["--out", `json=${jsonFifo}`] : ["--out", "opsbench=fd:3"]),
          ...(opts.extraArgs ?? []),
          "--summary-export",
          summaryPath,
          scriptPath,
        ],
        env: limits ? { ...launch.env, ...inFlightEnv(limits.maxVUs, opts.generators ?? 1) } : launch.env,
        deadlineMs,
        limits,
        inspected: inspected?.ok ? inspected : null,
        jsonFifo,
        resources: sandbox.resources ?? DEFAULT_K6_RESOURCES,
        onSpawn: (pid) => opts.onOwned?.({ pid, startTicks: processStartTicks(pid), network }),
      },
      summaryPath,
    );
    if (jsonFifo) rmSync(jsonFifo, { force: true });
    // What the script's handleSummary() wrote (relative to k6's folder), kept as the run's artifacts within caps. The
    // engine writes nothing over them; a stock k6 does, and its run is over its limits as the engine's would be.
    const collected = collectArtifacts(opts.workDir, before);
    const overCaps = collected.dropped.length
      ? `handleSummary() wrote files over the limit (at most ${ARTIFACT_LIMITS.files} files, ${ARTIFACT_LIMITS.fileBytes >> 20} MiB each, ${ARTIFACT_LIMITS.totalBytes >> 20} MiB in all): ${collected.dropped.join(", ")}`
      : null;
    return { ...result, ...collected, overLimits: result.overLimits ?? overCaps, unsandboxed: launch.unsandboxed };
  } finally {
    if (launch.network) await removeLoadNetwork(launch.network);
  }
}

/**
 * The engine's bound on requests in flight (netclient's LimitInFlight): the run's maxVUs, shared over its generators
 * (a segment's VUs are at most its share, rounded up), so no VU is ever held back but http.batch cannot go past the
 * VU limit. A stock k6 ignores it.
 */
export function inFlightEnv(maxVUs: number, generators: number): Record<string, string> {
  return { OPSBENCH_ENGINE_MAX_IN_FLIGHT: String(Math.max(1, Math.ceil(maxVUs / Math.max(1, generators)))) };
}

/** A result for a k6 that was never started because the run is over its limits. */
function notStarted(reason: string, unsandboxed: ValidityFlag | null): K6Result {
  return {
    exitCode: -1,
    cpuPercentOfMachine: null,
    summary: null,
    outputTail: "",
    malformedLines: 0,
    unsandboxed,
    deadlineExceeded: null,
    overLimits: reason,
    resourceLimit: null,
    artifacts: [],
    dropped: [],
  };
}

interface Launch {
  /** What k6's command line starts with (prlimit, ip netns exec ... bwrap ...). */
  prefix: string[];
  env: Record<string, string>;
  /** What the script sees of the run (its __ENV without the sandbox's own variables): k6 inspect gets the same. */
  runEnv: Record<string, string>;
  blockArgs: string[];
  /** `--config <file>` giving k6 a remote target's pinned address as a `hosts` entry (none for an address or loopback). */
  configArgs: string[];
  network: LoadNetwork | null;
  unsandboxed: ValidityFlag | null;
}

/**
 * The sandbox for one run: its load network (to the target on loopback, or routed to a remote target's one pinned
 * address and port) and bubblewrap; or, where that cannot be made and the admin allows it, k6 as a plain process
 * with address blocking only. Otherwise the run is refused.
 */
async function prepareLaunch(
  binary: string,
  workDir: string,
  env: Record<string, string>,
  settings: K6SandboxSettings,
  blockPorts: readonly ProtectedPort[],
  resolveHost?: (host: string) => Promise<string[]>,
): Promise<Launch> {
  const baseUrl = env.OPSBENCH_BASE_URL ? new URL(env.OPSBENCH_BASE_URL) : null;
  const targetHost = baseUrl?.hostname ?? null;
  const port = baseUrl ? Number(baseUrl.port || (baseUrl.protocol === "https:" ? 443 : 80)) : null;
  let problem = settings.off ? "turned off for a benchmark" : await sandboxProblem(binary);
  let network: LoadNetwork | null = null;
  let pinned: PinnedTarget | null = null;
  if (!problem && targetHost && port) {
    if (isLoopbackHost(targetHost))
      network = await createLoadNetwork({ port }).catch((err: Error) => {
        problem = `no network namespace for k6: ${err.message}`;
        return null;
      });
    else {
      problem = routedHostProblem(targetHost) ?? routedEgressProblem();
      if (!problem) {
        // Resolved once, here, and pinned: the namespace admits this address and port alone (no DNS inside).
        pinned = await pinTarget(targetHost, port, {
          blockedRanges: settings.blockedRanges,
          blockPorts,
          ...(resolveHost ? { resolve: resolveHost } : {}),
        });
        network = await createLoadNetwork({ port, remote: pinned.address }).catch((err: Error) => {
          problem = `no routed network namespace for k6: ${err.message}`;
          return null;
        });
      }
    }
  }
  const resources = settings.resources ?? DEFAULT_K6_RESOURCES;
  const limited = !(await prlimitProblem());
  const limitPrefix = limited ? resourcePrefix(resources.memoryMb, resources) : [];
  if (!problem) {
    // Inside, a loopback target is the gateway's address (same port); a remote one keeps its URL. Everything else is
    // unreachable.
    const inside = { ...env };
    if (network && !network.remote && baseUrl)
      inside.OPSBENCH_BASE_URL = env.OPSBENCH_BASE_URL!.replace(`//${baseUrl.host}`, `//${network.gateway}:${port}`);
    let configArgs: string[] = [];
    if (pinned?.hosts) {
      const configPath = path.join(workDir, "k6-config.json");
      writeFileSync(configPath, JSON.stringify({ hosts: pinned.hosts }));
      configArgs = ["--config", configPath];
    }
    return {
      prefix: [
        ...limitPrefix,
        ...(network ? ["ip", "netns", "exec", network.ns] : []),
        ...bwrapArgs({ binary, workDir, network: network ? "inherit" : "none" }),
      ],
      env: { ...sandboxEnv(workDir, inside), ...resourceEnv(resources.memoryMb, resources) },
      runEnv: inside,
      // The namespace already reaches nothing but the target; the list is a second wall. Admin ranges are left
      // out here: one as wide as 10.0.0.0/8 would cover the gateway itself (a remote target's address was judged
      // against them when it was pinned).
      blockArgs: blockArgs({ ...settings, blockedRanges: [] }, network?.remote ?? network?.gateway ?? null).args,
      configArgs,
      network,
      unsandboxed: null,
    };
  }
  if (!settings.allowUnsandboxed) throw refusal(problem);
  const blocks = blockArgs(settings, targetHost);
  return {
    prefix: limitPrefix,
    env: {
      ...systemEnv(),
      ...env,
      K6_NO_USAGE_REPORT: "true",
      K6_AUTO_EXTENSION_RESOLUTION: "false",
      ...resourceEnv(resources.memoryMb, resources),
    },
    runEnv: env,
    blockArgs: blocks.args,
    configArgs: [],
    network: null,
    unsandboxed: unsandboxedFlag(problem, blocks.reachable),
  };
}

/** When k6 must have finished: k6's own planned duration (k6 inspect, with the run's env) plus the grace, never past the maximum. */
function deadlineOf(inspected: Awaited<ReturnType<typeof validateScriptSource>> | null, d: K6Deadline): number {
  const planned = inspected?.ok && inspected.totalDurationSeconds !== null ? inspected.totalDurationSeconds : d.maxSeconds;
  return Math.min(planned + d.graceSeconds, d.maxSeconds) * 1000;
}

/** The FIFO in k6's folder a stock k6 writes its JSON output to (the sandbox shows it that folder, and no /dev/fd). */
const K6_JSON_FIFO = "k6-output.fifo";

/** Makes a FIFO (mkfifo, coreutils: Node has no call for it) readable and writable by this user only. */
function makeFifo(file: string): string {
  rmSync(file, { force: true });
  const r = spawnSync("mkfifo", ["-m", "600", file], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cannot make the FIFO for k6's JSON output: ${r.stderr || r.error?.message}`);
  return file;
}

/**
 * The read end of the FIFO, opened before k6 starts and without waiting for a writer (O_NONBLOCK: a plain open would
 * hold a thread until k6 opens it, forever if k6 fails first); it ends when k6 closes it or exits.
 */
function openFifo(file: string): net.Socket {
  const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  return new net.Socket({ fd, readable: true, writable: false });
}

/** How often the folded seconds of a stock k6's JSON output are handed on (each once it has settled). */
const JSON_FLUSH_MS = 1000;

/** k6's end-of-test summary; one larger than this (a script's own metric names can make it so) is not kept. */
const SUMMARY_LIMIT_BYTES = 4 << 20;

function readSummary(file: string): unknown {
  if (!existsSync(file) || statSync(file).size > SUMMARY_LIMIT_BYTES) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

/** Between the SIGINT (k6 stops gracefully, runs teardown, writes its summary) and SIGKILL. */
const KILL_AFTER_MS = 30_000;

/** The same for a k6 over its limits: nothing of it is worth waiting for. */
const OVER_LIMITS_KILL_AFTER_MS = 2_000;

/**
 * Reads a stock k6's JSON output from its FIFO and hands on the engine's lines (core k6-json-stream.ts) once a second,
 * each second once it has settled; `done()` (after k6 exited) reads what is left and ends with the "end" line.
 */
function readK6Json(fifo: net.Socket, onLine: (line: K6OutputLine) => void, onMalformed: () => void) {
  const folder = k6JsonStream();
  const emit = (lines: K6OutputLine[]) => {
    for (const l of lines) onLine(l);
  };
  const timer = setInterval(() => emit(folder.flush(Date.now())), JSON_FLUSH_MS);
  const read = (async () => {
    try {
      for await (const raw of boundedLines(fifo, OUTPUT_LINE_LIMIT_BYTES)) {
        if (raw === null || folder.line(raw) !== null) onMalformed();
      }
    } catch {
      // destroyed after k6 exited without ever opening it
    }
  })();
  return {
    async done() {
      // k6 closed its end when it exited (EOF); one that never opened it leaves nothing to wait for.
      const ended = await Promise.race([read.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1000))]);
      if (!ended) {
        fifo.destroy();
        await read;
      }
      clearInterval(timer);
      emit(folder.end());
    },
  };
}

/** Lines of a stream, none longer than `limit` bytes: a longer one is skipped whole and reported as null. */
export async function* boundedLines(input: Readable, limit: number): AsyncGenerator<string | null> {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      const piece = chunk.subarray(from, nl === -1 ? chunk.length : nl);
      if (!skipping) {
        if (size + piece.length > limit) {
          skipping = true;
          parts = [];
          size = 0;
        } else {
          parts.push(piece);
          size += piece.length;
        }
      }
      if (nl === -1) break;
      if (skipping) yield null;
      else yield Buffer.concat(parts).toString("utf8");
      parts = [];
      size = 0;
      skipping = false;
      from = nl + 1;
    }
  }
  if (skipping) yield null;
  else if (size > 0) yield Buffer.concat(parts).toString("utf8");
}

/** Runs k6, reads fd 3, samples its CPU, and stops it on abort or at its deadline. */
async function superviseK6(
  opts: {
    command: string[];
    workDir: string;
    env: Record<string, string>;
    signal: AbortSignal;
    onLine: (line: K6OutputLine) => void;
    deadlineMs: number | null;
    limits: K6RunLimits | null;
    inspected: Parameters<typeof planOverLimits>[2];
    /** A stock k6's JSON output (its FIFO), instead of the engine's lines on fd 3. */
    jsonFifo?: string | null;
    resources: typeof DEFAULT_K6_RESOURCES;
    onSpawn: (pid: number) => void;
  },
  summaryPath: string,
): Promise<Omit<K6Result, "unsandboxed" | "artifacts" | "dropped">> {
  // Opened before k6 starts, so k6's open of it for writing does not wait.
  const fifo = opts.jsonFifo ? openFifo(opts.jsonFifo) : null;
  // Its own process group (and session: no controlling terminal), so bwrap, k6 and all are signalled together.
  const child = spawn(opts.command[0]!, opts.command.slice(1), {
    cwd: opts.workDir,
    env: opts.env,
    stdio: fifo ? ["ignore", "pipe", "pipe"] : ["ignore", "pipe", "pipe", "pipe"],
    detached: true,
  });
  if (child.pid !== undefined) opts.onSpawn(child.pid);
  const signalGroup = (sig: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  let tail = "";
  const limitHit = resourceLimitWatcher(opts.resources.memoryMb, opts.resources, "OPSBENCH_K6_MEMORY_MB");
  const summaryOver = summaryLimitWatcher();
  const keep = (b: Buffer) => {
    const text = b.toString();
    limitHit.feed(text);
    summaryOver.feed(text);
    tail = (tail + text).slice(-6000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);

  // First: SIGINT, which k6 treats as a graceful stop. Later: SIGKILL.
  const stop = (killAfterMs = KILL_AFTER_MS) => {
    signalGroup("SIGINT");
    setTimeout(() => signalGroup("SIGKILL"), killAfterMs).unref();
  };
  // Above its limits (its plan, or the VUs it runs): stopped at once, its results are of no use.
  let overLimits: string | null = null;
  const stopOverLimits = (reasons: string[]) => {
    if (overLimits || reasons.length === 0) return;
    overLimits = reasons.join("; ");
    stop(OVER_LIMITS_KILL_AFTER_MS);
  };
  // The VUs k6 may run at once: its plan's (for its segment), never above the run's limit. A stock k6 writes no plan:
  // what inspect said of the whole test stands for it (a segment runs no more than the whole).
  let allowedVUs = opts.limits?.maxVUs ?? Number.POSITIVE_INFINITY;
  if (fifo && opts.limits && opts.inspected?.maxVUs != null) allowedVUs = Math.min(allowedVUs, opts.inspected.maxVUs);
  // A run aborted between its steps (e.g. during the baseline) reaches here already aborted: no event will fire.
  const onAbort = () => stop();
  if (opts.signal.aborted) stop();
  else opts.signal.addEventListener("abort", onAbort, { once: true });
  let deadlineExceeded: string | null = null;
  const deadline =
    opts.deadlineMs === null
      ? null
      : setTimeout(() => {
          deadlineExceeded = `k6 was stopped at its deadline: it ran past its planned duration plus the grace period (${Math.round(opts.deadlineMs! / 1000)} s in all)`;
          stop();
        }, opts.deadlineMs);

  // Sample k6's CPU time while it runs (its /proc entry is gone once it exits); the group holds k6 and bwrap.
  const startedAt = Date.now();
  let lastTicks: number | null = null;
  const cpuSampler = setInterval(() => {
    const t = child.pid ? groupCpuTicks([child.pid]).get(child.pid) : undefined;
    if (t !== undefined) lastTicks = t;
  }, 500);

  let malformed = 0;
  let formatError: string | null = null;
  const take = (line: K6OutputLine) => {
    if (line.t === "plan") {
      // Before any VU exists: what k6 run will do, against the limits and against what inspect said.
      stopOverLimits(planOverLimits(line, opts.limits, opts.inspected));
      allowedVUs = Math.min(allowedVUs, line.segmentVUs ?? line.maxVUs);
    } else if (line.t === "load") {
      const over = vusOverPlan(Math.max(line.vus, line.vusMax), allowedVUs);
      if (over) stopOverLimits([over]);
    }
    opts.onLine(line);
  };
  const reading = fifo ? readK6Json(fifo, take, () => malformed++) : null;
  const readingEngine = (async () => {
    if (fifo) return;
    for await (const raw of boundedLines(child.stdio[3] as Readable, OUTPUT_LINE_LIMIT_BYTES)) {
      if (raw === null) {
        malformed++;
        continue;
      }
      if (!raw.trim()) continue;
      let parsed: ReturnType<typeof k6OutputLine.safeParse> | null;
      try {
        parsed = k6OutputLine.safeParse(JSON.parse(raw));
      } catch {
        parsed = null;
      }
      if (!parsed?.success) malformed++;
      else if (parsed.data.t === "meta" && parsed.data.alpha !== HISTOGRAM_ALPHA) {
        // Buckets of another accuracy would be read wrongly: refuse the whole output.
        formatError = `k6 output writes histograms with alpha ${parsed.data.alpha}, opsbench reads ${HISTOGRAM_ALPHA}; rebuild the engine (npm run engine:build)`;
        signalGroup("SIGINT");
      } else if (!formatError) take(parsed.data);
    }
  })();

  const exitCode = await new Promise<number>((resolve) => {
    child.once("error", (err) => {
      keep(Buffer.from(String(err)));
      resolve(-1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : -1)));
  });
  await readingEngine;
  await reading?.done();
  clearInterval(cpuSampler);
  if (deadline) clearTimeout(deadline);
  opts.signal.removeEventListener("abort", onAbort);
  const seconds = (Date.now() - startedAt) / 1000;
  const cpuPercentOfMachine =
    lastTicks !== null && seconds > 0 ? Math.round((10_000 * lastTicks) / CLOCK_TICKS_PER_SECOND / seconds / os.cpus().length) / 100 : null;
  const summary = readSummary(summaryPath);
  if (formatError) throw new Error(formatError);
  return {
    exitCode,
    cpuPercentOfMachine,
    summary,
    outputTail: tail.trim().split("\n").slice(-15).join("\n"),
    malformedLines: malformed,
    deadlineExceeded,
    overLimits: overLimits ?? summaryOver.hit,
    resourceLimit: limitHit.hit,
  };
}
