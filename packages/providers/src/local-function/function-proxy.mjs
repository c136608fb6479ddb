// The front of a local-function: a proxy process that starts instances of the
// benchapp on demand, as Cloud Run, Lambda or OpenWhisk do (docs/local-engine.md):
//   - a request finds an instance with a free slot (per-instance concurrency),
//     else starts one (a cold start, timed from that request's arrival to the
//     instance answering its health check), up to maxInstances;
//   - when every instance is busy and none may start, it waits in a queue for
//     at most queueTimeoutMs, then gets 429 Too Many Requests (what Lambda,
//     Cloud Run and OpenWhisk answer when no instance is available);
//   - an instance idle for idleTimeoutMs is stopped (scale to zero; minInstances stay);
//   - every request's duration is billed rounded up to the platform's
//     granularity (and each instance's busy time, for per-instance billing).
// Instances stay in this process's group, so stopping the group stops them all.
//
//   node function-proxy.mjs '<JSON config, see the provider>'
// Admin (127.0.0.1:adminPort): GET /stats[?resetPeak=1], POST /retire-idle.
import { spawn } from "node:child_process";
import http from "node:http";
import { freePort } from "@opsbench/host/free-port";

let c;
try {
  c = JSON.parse(process.argv[2] ?? "");
  for (const k of [
    "port",
    "adminPort",
    "concurrency",
    "minInstances",
    "maxInstances",
    "idleTimeoutMs",
    "queueTimeoutMs",
    "maxQueue",
    "startTimeoutMs",
  ]) {
    if (!Number.isInteger(c[k])) throw new Error(`${k} must be an integer`);
  }
  if (!Array.isArray(c.command) || !c.command.length || !c.healthPath || !c.billing)
    throw new Error("command, healthPath and billing are required");
} catch (err) {
  console.error(`function-proxy.mjs: bad config: ${err.message}`);
  process.exit(2);
}

const now = () => performance.timeOrigin + performance.now();
const billed = (ms) => Math.max(c.billing.minimumMs, Math.ceil(Math.max(0, ms) / c.billing.granularityMs - 1e-9) * c.billing.granularityMs);

/**
 * Per-instance billing: the instance's time is cut into granularity-long slots on
 * the clock, and every slot in which it was busy is billed once (as Cloud Run bills
 * instance time rounded up to 100 ms). Rounding each short busy period up on its own
 * would bill a busy instance many times over its wall-clock time.
 */
function billedSlots(inst, start, end) {
  const g = c.billing.granularityMs;
  const from = Math.max(Math.floor(start / g) * g, inst.billedUntil ?? 0);
  const until = Math.ceil(end / g - 1e-9) * g;
  if (until <= from) return 0;
  inst.billedUntil = until;
  return until - from;
}

/** id -> instance */
const instances = new Map();
let nextId = 0;
/** Cgroups, one set of folders per possible instance (made by the provider). */
const slots = (c.cgroupSlots ?? []).map((paths) => ({ paths, used: false }));
const queue = [];
const t = {
  requests: 0,
  responses: 0,
  coldStarts: 0,
  prewarmStarts: 0,
  startFailures: 0,
  crashes: 0,
  stoppedIdle: 0,
  queuedTotal: 0,
  queueTimeouts: 0,
  queueRejected: 0,
  queueWaitMsTotal: 0,
  queueWaitMsMax: 0,
  queuePeak: 0,
  billedRequestMs: 0,
  billedInstanceMs: 0,
  durationMs: 0,
  errors: 0,
  abandoned: 0,
  unlimitedStarts: 0,
};
const coldStartLog = []; // { seq, ms, at }
let coldSeq = 0;
let lastStartError = null;

const live = () => [...instances.values()].filter((i) => i.state !== "stopping");
const used = (i) => i.reserved + i.inFlight;

function startInstance(triggerAt) {
  const inst = {
    id: nextId++,
    state: "starting",
    pid: null,
    port: null,
    child: null,
    reserved: 0,
    inFlight: 0,
    served: 0,
    busySince: null,
    idleSince: now(),
    triggerAt,
    agent: null,
    tail: "",
    slot: null,
  };
  inst.ready = new Promise((resolve, reject) => {
    inst.resolve = resolve;
    inst.reject = reject;
  });
  inst.ready.catch(() => {});
  instances.set(inst.id, inst);
  void boot(inst);
  return inst;
}

async function boot(inst) {
  try {
    inst.port = await freePort();
    const slot = slots.find((s) => !s.used);
    if (slots.length && !slot) t.unlimitedStarts++; // cannot happen while live instances <= maxInstances = slots
    let cmd = c.command;
    if (slot) {
      slot.used = true;
      inst.slot = slot;
      // Join the instance's cgroups (one per v1 hierarchy) before exec, keeping the pid.
      const joins = slot.paths.map((_, i) => `echo $$ > "$${i + 1}/cgroup.procs"`).join(" && ");
      cmd = ["sh", "-c", `${joins} && shift ${slot.paths.length} && exec "$@"`, "sh", ...slot.paths, ...c.command];
    }
    const child = spawn(cmd[0], cmd.slice(1), {
      cwd: c.cwd,
      // The proxy itself starts with a minimal environment (packages/host/src/process-env.ts); instances get only PATH and HOME of it.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...c.env, PORT: String(inst.port), HOST: "127.0.0.1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    inst.child = child;
    inst.pid = child.pid;
    child.stderr.on("data", (d) => (inst.tail = (inst.tail + d).slice(-2000)));
    child.once("exit", (code, signal) => onExit(inst, code, signal));
    child.once("error", (err) => onExit(inst, null, null, err));
    const until = now() + c.startTimeoutMs;
    while (inst.state === "starting") {
      if (now() > until) throw new Error(`instance did not answer ${c.healthPath} within ${c.startTimeoutMs} ms`);
      if (await healthy(inst.port)) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    if (inst.state !== "starting") throw new Error(inst.exitReason ?? "instance stopped during start-up");
    inst.state = "ready";
    inst.readyAt = now();
    inst.idleSince = inst.readyAt;
    inst.agent = new http.Agent({ keepAlive: true, maxSockets: c.concurrency });
    if (inst.triggerAt !== null) {
      t.coldStarts++;
      coldStartLog.push({
        seq: ++coldSeq,
        ms: Math.round((inst.readyAt - inst.triggerAt) * 10) / 10,
        at: new Date(inst.readyAt).toISOString(),
      });
      if (coldStartLog.length > 1000) coldStartLog.shift();
    } else t.prewarmStarts++;
    inst.resolve(inst);
    pump();
  } catch (err) {
    t.startFailures++;
    lastStartError = `${err.message}${inst.tail ? `: ${inst.tail.trim().split("\n").slice(-3).join(" | ")}` : ""}`;
    inst.reject(new Error(lastStartError));
    retire(inst);
    pump();
  }
}

function healthy(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: c.healthPath, agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode >= 200 && res.statusCode < 300);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
  });
}

function onExit(inst, code, signal, err) {
  inst.exitReason = err ? err.message : `instance exited (${signal ?? `code ${code}`})`;
  if (inst.state === "ready" && !inst.retiring) t.crashes++;
  if (inst.state === "starting") inst.state = "stopping"; // boot() sees it and fails the start
  inst.exited = true;
  retire(inst);
  pump();
}

/** Takes an instance out; stops its process if still running. */
function retire(inst) {
  if (inst.retiring) {
    if (inst.exited) instances.delete(inst.id);
    return;
  }
  inst.retiring = true;
  inst.state = "stopping";
  inst.agent?.destroy();
  // The slot's cgroup is free for the next instance now (there are exactly maxInstances slots); the
  // stopping process shares it for the moment it takes to exit.
  if (inst.slot) inst.slot.used = false;
  if (inst.exited || !inst.child || inst.child.exitCode !== null) {
    instances.delete(inst.id);
    return;
  }
  inst.child.kill("SIGTERM");
  const hard = setTimeout(() => inst.child.kill("SIGKILL"), 3000);
  inst.child.once("exit", () => {
    clearTimeout(hard);
    instances.delete(inst.id);
  });
}

/** A slot for a request: a ready (or starting) instance with room, a new instance, or null (queue). */
function reserve(arrivedAt) {
  const open = live().filter((i) => used(i) < c.concurrency);
  // Fill the busiest ready instance first, so spare ones go idle and scale down.
  const ready = open.filter((i) => i.state === "ready").sort((a, b) => used(b) - used(a) || b.id - a.id)[0];
  const pick = ready ?? open.find((i) => i.state === "starting") ?? (live().length < c.maxInstances ? startInstance(arrivedAt) : null);
  if (pick) pick.reserved++;
  return pick;
}

function pump() {
  while (queue.length) {
    // A start caused by a waiting request is timed from now: its wait so far is queue time.
    const inst = reserve(now());
    if (!inst) return;
    const w = queue.shift();
    clearTimeout(w.timer);
    const waited = now() - w.arrivedAt;
    t.queueWaitMsTotal += waited;
    t.queueWaitMsMax = Math.max(t.queueWaitMsMax, waited);
    w.resolve(inst);
  }
}

function acquire(arrivedAt, res) {
  const inst = reserve(arrivedAt);
  if (inst) return Promise.resolve(inst);
  if (queue.length >= c.maxQueue || c.queueTimeoutMs === 0) {
    t.queueRejected++;
    return Promise.resolve(null);
  }
  t.queuedTotal++;
  return new Promise((resolve) => {
    const w = { arrivedAt, resolve, timer: null };
    // A client that gives up (its own timeout) leaves the queue.
    res.once("close", () => {
      const k = queue.indexOf(w);
      if (k < 0) return;
      queue.splice(k, 1);
      clearTimeout(w.timer);
      t.abandoned++;
      resolve(null);
    });
    w.timer = setTimeout(() => {
      const k = queue.indexOf(w);
      if (k >= 0) queue.splice(k, 1);
      t.queueTimeouts++;
      const waited = now() - arrivedAt;
      t.queueWaitMsTotal += waited;
      t.queueWaitMsMax = Math.max(t.queueWaitMsMax, waited);
      resolve(null);
    }, c.queueTimeoutMs);
    queue.push(w);
    t.queuePeak = Math.max(t.queuePeak, queue.length);
  });
}

const HOP = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"];
const endToEnd = (h) => {
  const out = { ...h };
  for (const k of HOP) delete out[k];
  return out;
};

function answer(res, status, text, headers = {}) {
  t.errors++;
  if (!res.headersSent) res.writeHead(status, { "content-type": "text/plain", ...headers }).end(text);
  else res.destroy();
}

const server = http.createServer(async (req, res) => {
  const arrivedAt = now();
  t.requests++;
  let gone = false;
  res.once("close", () => (gone = true));
  const inst = await acquire(arrivedAt, res);
  if (!inst) {
    // 429, as the platforms answer when no instance is available (not 503: the service is up, it is at its limit).
    if (!gone)
      answer(
        res,
        429,
        `no instance available within ${c.queueTimeoutMs} ms (max ${c.maxInstances} instances x concurrency ${c.concurrency})`,
        { "retry-after": "1" },
      );
    req.resume();
    return;
  }
  try {
    await inst.ready;
  } catch (err) {
    inst.reserved--;
    if (!gone) answer(res, 503, `instance failed to start: ${err.message}`);
    req.resume();
    pump();
    return;
  }
  inst.reserved--;
  if (gone) {
    // The client left while its instance was starting: free the slot, bill nothing.
    t.abandoned++;
    pump();
    return;
  }
  if (inst.state !== "ready") {
    answer(res, 503, "instance stopped before it could serve");
    req.resume();
    pump();
    return;
  }
  inst.inFlight++;
  const started = now();
  if (inst.inFlight === 1) inst.busySince = started;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    const end = now();
    const ms = end - started;
    t.durationMs += ms;
    t.billedRequestMs += billed(ms);
    t.responses++;
    inst.served++;
    inst.inFlight--;
    if (inst.inFlight === 0) {
      t.billedInstanceMs += billedSlots(inst, inst.busySince, end);
      inst.busySince = null;
      inst.idleSince = end;
    }
    pump();
  };
  const up = http.request(
    { host: "127.0.0.1", port: inst.port, method: req.method, path: req.url, headers: endToEnd(req.headers), agent: inst.agent },
    (ur) => {
      res.writeHead(ur.statusCode ?? 502, endToEnd(ur.headers));
      ur.pipe(res);
    },
  );
  up.on("error", (err) => {
    answer(res, 502, `bad gateway: ${err.code ?? err.message}`);
    finish();
  });
  res.on("close", () => {
    if (!res.writableFinished) up.destroy();
    finish();
  });
  req.pipe(up);
});
server.keepAliveTimeout = 65_000;

// Scale to zero: stop instances idle for idleTimeoutMs, keeping minInstances.
setInterval(
  () => {
    const at = now();
    let keep = live().length;
    for (const inst of [...instances.values()].sort((a, b) => a.idleSince - b.idleSince)) {
      if (keep <= c.minInstances) break;
      if (inst.state === "ready" && used(inst) === 0 && at - inst.idleSince >= c.idleTimeoutMs) {
        t.stoppedIdle++;
        retire(inst);
        keep--;
      }
    }
    // Keep minInstances warm (also after a crash).
    for (let n = live().length; n < c.minInstances; n++) startInstance(null);
  },
  Math.max(50, Math.min(250, Math.floor(c.idleTimeoutMs / 4))),
);

function stats(resetPeak) {
  const all = [...instances.values()];
  const out = {
    instances: live().length,
    ready: all.filter((i) => i.state === "ready").length,
    starting: all.filter((i) => i.state === "starting").length,
    stopping: all.filter((i) => i.state === "stopping").length,
    inFlight: all.reduce((a, i) => a + i.inFlight, 0),
    queued: queue.length,
    ...t,
    coldStartLog,
    lastStartError,
    perInstance: all.map((i) => ({ id: i.id, pid: i.pid, state: i.state, inFlight: i.inFlight, served: i.served })),
    pids: all.map((i) => i.pid).filter(Boolean),
  };
  if (resetPeak) t.queuePeak = queue.length;
  return out;
}

const admin = http.createServer((req, res) => {
  const json = (status, body) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const url = new URL(req.url ?? "/", "http://x");
  if (req.method === "GET" && url.pathname === "/stats") return json(200, stats(url.searchParams.get("resetPeak") === "1"));
  if (req.method === "POST" && url.pathname === "/retire-idle") {
    // Local shortcut (after deploy's probe): idle instances go now instead of after idleTimeoutMs.
    let keep = live().length;
    for (const inst of [...instances.values()]) {
      if (keep <= c.minInstances) break;
      if (inst.state === "ready" && used(inst) === 0) {
        retire(inst);
        keep--;
      }
    }
    return json(200, stats(false));
  }
  json(404, { error: "GET /stats or POST /retire-idle" });
});

server.listen(c.port, "127.0.0.1", () =>
  admin.listen(c.adminPort, "127.0.0.1", () => {
    for (let n = 0; n < c.minInstances; n++) startInstance(null);
    console.log(`function proxy on 127.0.0.1:${c.port} (concurrency ${c.concurrency}, max ${c.maxInstances}), admin on :${c.adminPort}`);
  }),
);

function shutdown() {
  for (const inst of instances.values()) inst.child?.kill("SIGTERM");
  const until = now() + 3000;
  const wait = () => {
    const left = [...instances.values()].filter((i) => i.child && i.child.exitCode === null && i.child.signalCode === null);
    if (left.length === 0 || now() > until) {
      for (const i of left) i.child.kill("SIGKILL");
      process.exit(0);
    }
    setTimeout(wait, 20);
  };
  wait();
}
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, shutdown);
