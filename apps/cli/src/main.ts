// opsbench: the command line. Exit codes: 0 ok, 1 run failed, 2 bad input,
// 99 the run finished but its k6 thresholds failed.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createDb, defaultWorkspaceId, NotFoundError, workspaceScope, type Db } from "@opsbench/db";
import { createRunQueue, startRun, type RunQueue } from "@opsbench/jobs";
import { ADMIN_USAGE, adminCommand } from "./admin-command";
import { DELETE_USAGE, deleteCommand } from "./delete-command";
import { DEMO_USAGE, demoCommand } from "./demo-command";
import { childEnv, loadEnv, loadRemote, repoRoot, type CliEnv } from "./env";
import { costCommand } from "./cost-command";
import { importK6Command } from "./import-k6";
import { WORKLOAD_USAGE, workloadCommand } from "./workload-command";
import { studyCommand } from "./study-command";
import { externalRunCommand } from "./external-run-command";
import { INGEST_USAGE, ingestCommand } from "./ingest-command";
import { ensureRunner, ensureWorker, type Managed, nodeProgram } from "./processes";
import { formatWindow, windowJson, isRemoteCommand, REMOTE_USAGE, remoteCommand, windowOf } from "./remote-main";
import { asksForHelp, asksForVersion, helpText } from "./help";
import { exitWith, parsing, UsageError } from "./usage-error";
import { exitCodeFor, formatSummary, type RunReport, runSummaryJson, waitForRun } from "./wait-for-run";

const USAGE = `usage:
${DEMO_USAGE}
${REMOTE_USAGE}
${INGEST_USAGE}
  opsbench worker [--role load]                               run a worker in the foreground (--role load: a load generator only)
${WORKLOAD_USAGE}
  opsbench study run FILE.json [--json] | show ID | abort ID  run a study (targets x workloads x repetitions, docs/studies.md) and wait
  opsbench study iot [--time-scale 0.0333] [--repetitions 3]  print the local IoT study (study 000's four profiles) as a study file
  opsbench cost --model FILE.json --usage FILE.json [--json] price a usage record under a cost model (--catalogs: list price catalogs)
${DELETE_USAGE}
${ADMIN_USAGE}
  opsbench COMMAND --help                                     the usage of one command (exit 0); opsbench --version: the CLI's version
With OPSBENCH_URL and OPSBENCH_TOKEN set, run, runs show, import k6, compare, baseline and study run go to that server's API
instead of the database (all but study run through the same code as the packed CLI: npm run cli:pack, docs/ci.md).`;

const say = (m: string) => process.stderr.write(`${m}\n`);

async function main(argv: string[]): Promise<number> {
  if (asksForVersion(argv)) {
    console.log(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version);
    return 0;
  }
  if (asksForHelp(argv)) {
    console.log(helpText(USAGE, argv));
    return 0;
  }
  const [command, ...rest] = argv;
  // The run's own ingest token, not an API token: the same with or without OPSBENCH_URL.
  if (command === "ingest") return ingestCommand(rest, { say });
  // With OPSBENCH_URL set, what the server's API answers goes there (the same code as the packed CLI).
  const remote = isRemoteCommand(argv) ? loadRemote() : null;
  if (remote) return remoteCommand(remote, argv, { say, out: (m) => console.log(m) });
  const serverOnly = [
    "--script",
    "--baseline",
    "--fail-on",
    "--run-cv",
    "--baseline-runs",
    "--fail-on-inconclusive",
    "--junit",
    "--summary",
  ];
  if (command === "compare" || command === "baseline" || (command === "run" && rest.some((a) => serverOnly.includes(a.split("=")[0]!))))
    throw new UsageError(`"${command}" with these options works against a server: set OPSBENCH_URL and OPSBENCH_TOKEN (docs/ci.md)`);
  const deleting = { runs: "run", study: "study", targets: "target", workloads: "workload" } as const;
  if (rest[0] === "delete" && command && command in deleting)
    return deleteCommand(deleting[command as keyof typeof deleting], rest.slice(1), { say, usageError: (m) => new UsageError(m) });
  switch (command) {
    case "demo":
      return demoCommand(rest, { usageError: (m) => new UsageError(m) });
    case "run":
      if (rest.includes("--external")) return externalRunCommand(rest, { say });
      return run(rest);
    case "worker":
      return workerCommand(rest);
    case "runs":
      if (rest[0] === "show") return runsShow(rest.slice(1));
      throw new UsageError(`unknown command "runs ${rest[0] ?? ""}"`);
    case "admin":
      return adminCommand(rest, { say, usageError: (m) => new UsageError(m) });
    case "cost":
      return costCommand(rest, { say, usageError: (m) => new UsageError(m) });
    case "study":
      return studyCommand(rest, { say, usageError: (m) => new UsageError(m) });
    case "workload":
      return workloadCommand(rest, { say, usageError: (m) => new UsageError(m) });
    case "import":
      if (rest[0] === "k6") return importK6Command(rest.slice(1), { say, usageError: (m) => new UsageError(m) });
      throw new UsageError(`unknown command "import ${rest[0] ?? ""}" (known: import k6)`);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      console.log(USAGE);
      return 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** `opsbench worker [--role all|load]`: the worker in the foreground; on a generator-only machine, --role load. */
async function workerCommand(args: string[]): Promise<number> {
  const { values } = parsing(() => parseArgs({ args, strict: true, options: { role: { type: "string", default: "all" } } }));
  if (values.role !== "all" && values.role !== "load") throw new UsageError(`--role must be "all" or "load", not "${values.role}"`);
  // k6 runs on this machine's runner, beside the worker: started here unless one answers already.
  const runner = await ensureRunner(loadEnv(), (m) => console.error(m));
  const child = spawn(process.execPath, [...nodeProgram("worker"), "--role", values.role], {
    cwd: repoRoot,
    env: childEnv(loadEnv()),
    stdio: "inherit",
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  const code = await new Promise<number>((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
  await runner?.stop();
  return code;
}

interface Session {
  env: CliEnv;
  db: Db;
  queue: RunQueue;
  scope: ReturnType<typeof workspaceScope>;
  children: Managed[];
  close(): Promise<void>;
}

async function openSession(): Promise<Session> {
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 3 });
  const queue = createRunQueue(env.REDIS_URL);
  const scope = workspaceScope(db, await defaultWorkspaceId(db));
  const children: Managed[] = [];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await Promise.all(children.map((c) => c.stop()));
    await queue.close();
    await db.$disconnect();
  };
  return { env, db, queue, scope, children, close };
}

async function run(args: string[]): Promise<number> {
  const { values } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      options: { target: { type: "string" }, workload: { type: "string" }, json: { type: "boolean", default: false } },
    }),
  );
  if (!values.target || !values.workload) throw new UsageError("run needs --target NAME and --workload NAME");
  const s = await openSession();
  try {
    // Names are checked before anything is started or written.
    await s.scope.targets.byName(values.target).catch((err) => rethrowKnown(err, () => s.scope.targets.list()));
    await s.scope.workloads.byName(values.workload).catch((err) => rethrowKnown(err, () => s.scope.workloads.list()));
    const worker = await ensureWorker(s.env, s.queue, say);
    if (worker) s.children.push(worker);
    const created = await startRun(s.scope, s.queue, { targetName: values.target, workloadName: values.workload });
    return printRun(await waitForRun(s.db, created.id, say), values.json);
  } finally {
    await s.close();
  }
}

function printRun(view: RunReport, json: boolean): number {
  if (json) console.log(JSON.stringify(runSummaryJson(view)));
  else console.log(formatSummary(view));
  return exitCodeFor(view);
}

async function rethrowKnown(err: unknown, list: () => Promise<Array<{ name: string }>>): Promise<never> {
  if (err instanceof NotFoundError) {
    const known = (await list()).map((x) => x.name);
    throw new UsageError(`unknown ${err.entity} "${err.key}" (known: ${known.length ? known.join(", ") : "none yet"})`);
  }
  throw err;
}

async function runsShow(args: string[]): Promise<number> {
  const { values, positionals } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { json: { type: "boolean", default: false }, from: { type: "string" }, to: { type: "string" } },
    }),
  );
  if (positionals.length !== 1) throw new UsageError("runs show needs one RUN_ID");
  if (values.from !== undefined || values.to !== undefined) return runsShowWindow(positionals[0]!, values.from, values.to, values.json);
  const s = await openSession();
  try {
    const view = await s.scope.runs.view(positionals[0]!).catch((err) => {
      if (err instanceof NotFoundError) throw new UsageError(`no run with id "${positionals[0]}"`);
      throw err;
    });
    console.log(values.json ? JSON.stringify(runSummaryJson(view), null, 2) : formatSummary(view));
    return 0;
  } finally {
    await s.close();
  }
}

/** `runs show ID --from S --to S`: the summary of seconds [S, S) after the load started. */
async function runsShowWindow(id: string, fromText: string | undefined, toText: string | undefined, json: boolean): Promise<number> {
  const { from, to } = windowOf(fromText, toText);
  const s = await openSession();
  try {
    const w = await s.scope.runs.windowSummary(id, from, to).catch((err) => {
      if (err instanceof NotFoundError) throw new UsageError(`no run with id "${id}"`);
      throw err;
    });
    if (!w) throw new UsageError(`run ${id} has no results`);
    console.log(json ? JSON.stringify(windowJson(id, w), null, 2) : formatWindow(id, from, to, w));
    return 0;
  } finally {
    await s.close();
  }
}

exitWith(main(process.argv.slice(2)), USAGE, say);
