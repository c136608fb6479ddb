// `opsbench study run FILE.json`: runs a study described in a file (targets x
// workloads x repetitions, order, seed, cool-down; docs/studies.md) and waits,
// printing progress and, at the end, each cell's mean +- SD and 95% CI.
// `opsbench study show ID` and `opsbench study abort ID`. Exit codes: 0 every
// run succeeded, 1 any did not, 2 bad input (nothing written), 130 interrupted.
import { StudyInterrupt } from "./study-interrupt";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import type { StudyViewAnswer } from "@opsbench/api";
import {
  IOT_STUDY_TIME_SCALE,
  iotStudy,
  isFinalRunStatus,
  isStudySettled,
  STUDY_CELL_FIGURES,
  studyFigureText,
  studyInput,
  type SampleStats,
  type StudyCellFigure,
  type StudyInput,
} from "@opsbench/core";
import { createDb, defaultWorkspaceId, NotFoundError, workspaceScope, type WorkspaceScope } from "@opsbench/db";
import { createRunQueue, createStudyQueue, queueWorkers, startStudy } from "@opsbench/jobs";
import { loadEnv, loadRemote } from "./env";
import { ensureWorker, type Managed } from "./processes";
import { type Remote, RemoteInputError, remoteAbortStudy, remoteStartStudy, remoteStudyReport } from "./remote-client";

interface Io {
  say: (m: string) => void;
  usageError: (m: string) => Error;
}

/** A study file that cannot be run: exit 2, nothing written. */
export class StudyFileError extends Error {}

/** Reads and validates a study file; every problem names its field. */
export async function readStudyFile(file: string): Promise<StudyInput> {
  const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
    throw new StudyFileError(err.code === "ENOENT" ? `no such file: ${file}` : `cannot read ${file}: ${err.message}`);
  });
  if (info.isDirectory()) throw new StudyFileError(`${file} is a directory, not a study file`);
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new StudyFileError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = studyInput.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.flatMap((i) => {
      const at = i.path.map(String).join(".");
      if (i.code === "unrecognized_keys") return i.keys.map((k) => `  ${at ? `${at}.` : ""}${k}: unrecognized key`);
      return [`  ${at || "(file)"}: ${i.message}`];
    });
    throw new StudyFileError(`${file} is not a valid study:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export async function studyCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "run") return studyRun(rest, io);
  if (sub === "show") return studyShow(rest, io);
  if (sub === "abort") return studyAbort(rest, io);
  if (sub === "iot") return studyIotFile(rest, io);
  throw io.usageError(`unknown command "study ${sub ?? ""}" (known: study run, study show, study abort, study iot)`);
}

/** `study iot [--time-scale X] [--repetitions N]`: prints the local IoT study (core's iotStudy) as a study file. */
function studyIotFile(args: string[], io: Io): number {
  let values: { "time-scale"?: string; repetitions?: string };
  try {
    ({ values } = parseArgs({ args, strict: true, options: { "time-scale": { type: "string" }, repetitions: { type: "string" } } }));
  } catch (err) {
    throw io.usageError((err as Error).message);
  }
  const timeScale = values["time-scale"] === undefined ? IOT_STUDY_TIME_SCALE : Number(values["time-scale"]);
  if (!(timeScale > 0 && timeScale <= 1)) throw io.usageError(`--time-scale must be a number in (0, 1], not "${values["time-scale"]}"`);
  const repetitions = values.repetitions === undefined ? undefined : Number(values.repetitions);
  const draft = iotStudy({ timeScale, ...(repetitions === undefined ? {} : { repetitions }) });
  const parsed = studyInput.safeParse(draft);
  if (!parsed.success)
    throw io.usageError(`not a valid study: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  console.log(JSON.stringify(draft, null, 2));
  return 0;
}

function parse(args: string[], io: Io, what: string) {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: { json: { type: "boolean"; default: false } } }>
  >;
  try {
    parsed = parseArgs({ args, strict: true, allowPositionals: true, options: { json: { type: "boolean", default: false } } });
  } catch (err) {
    throw io.usageError((err as Error).message);
  }
  if (parsed.positionals.length !== 1) throw io.usageError(`study ${what} needs one ${what === "run" ? "FILE" : "STUDY_ID"}`);
  return { arg: parsed.positionals[0]!, json: parsed.values.json };
}

async function openScope() {
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 3 });
  const scope = workspaceScope(db, await defaultWorkspaceId(db));
  return { env, db, scope };
}

async function studyRun(args: string[], io: Io): Promise<number> {
  const { arg, json } = parse(args, io, "run");
  const file = path.resolve(arg);
  let input: StudyInput;
  try {
    input = await readStudyFile(file);
  } catch (err) {
    if (err instanceof StudyFileError) {
      io.say(`opsbench: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const remote = loadRemote();
  if (remote) return remoteStudyRun(remote, input, json, io);

  const { env, db, scope } = await openScope();
  const runQueue = createRunQueue(env.REDIS_URL);
  const studyQueue = createStudyQueue(env.REDIS_URL);
  const children: Managed[] = [];
  const interrupt = new StudyInterrupt(scope, {
    say: (m) => io.say(m.startsWith("\n") ? m : `opsbench: ${m}`),
    notice: "\nstopping: aborting the study (the run under way is stopped and torn down)...",
    secondSignalExits: false,
  });
  try {
    // Names are checked before a worker is started; the study is then created in one transaction.
    const missing = await missingNames(scope, input);
    if (missing) {
      io.say(`opsbench: ${missing}`);
      return 2;
    }
    const worker = await ensureWorker(env, runQueue, io.say);
    if (worker) children.push(worker);
    await waitForStudyWorker(studyQueue);
    let created: Awaited<ReturnType<typeof startStudy>>;
    try {
      created = await startStudy(scope, studyQueue, input);
    } catch (err) {
      if (err instanceof NotFoundError) {
        io.say(`opsbench: unknown ${err.entity} "${err.key}"`);
        return 2;
      }
      throw err;
    }
    const studyId = created.study.id;
    await interrupt.follow(studyId);
    const cells = created.cells.length;
    sayCreated(io, studyId, { cells, runs: created.runs.length, order: input.order, seed: created.study.seed }, input);
    const view = await waitForStudy((merged) => scope.studies.view(studyId, { merged }), studyId, io.say);
    return printStudy(view, json, interrupt.interrupted);
  } finally {
    interrupt.release();
    await Promise.all(children.map((c) => c.stop()));
    await runQueue.close();
    await studyQueue.close();
    await db.$disconnect();
  }
}

function sayCreated(io: Io, studyId: string, c: { cells: number; runs: number; order: string; seed: number | null }, input: StudyInput) {
  io.say(
    `study ${studyId}: ${c.cells} cell${c.cells === 1 ? "" : "s"} x ${input.repetitions} repetition${input.repetitions === 1 ? "" : "s"} = ${c.runs} runs, ` +
      `${c.order}${c.seed !== null ? ` (seed ${c.seed})` : ""}, cool-down ${input.cooldownSeconds} s`,
  );
}

/** Exit 0 when every run succeeded, 1 when any did not, 130 when interrupted. */
function printStudy(view: StudyViewAnswer, json: boolean, interrupted: boolean): number {
  if (json) console.log(JSON.stringify(view, null, 2));
  else console.log(formatStudy(view));
  if (interrupted) return 130;
  return view.status === "SUCCEEDED" ? 0 : 1;
}

/** `study run` against a server: it checks the names and runs the study on its worker; this follows its API. */
async function remoteStudyRun(remote: Remote, input: StudyInput, json: boolean, io: Io): Promise<number> {
  const interrupt = new StudyInterrupt(
    { studies: { abort: (id) => remoteAbortStudy(remote, id) } },
    {
      say: (m) => io.say(m.startsWith("\n") ? m : `opsbench: ${m}`),
      notice: "\nstopping: aborting the study on the server (the run under way is stopped and torn down)...",
      secondSignalExits: true,
    },
  );
  try {
    let created: Awaited<ReturnType<typeof remoteStartStudy>>;
    try {
      created = await remoteStartStudy(remote, input);
    } catch (err) {
      if (err instanceof RemoteInputError) {
        io.say(`opsbench: ${err.message}`);
        return 2;
      }
      throw err;
    }
    io.say(`study ${created.id.slice(0, 8)} created on ${remote.url}`);
    await interrupt.follow(created.id);
    sayCreated(io, created.id, created, input);
    const view = await waitForStudy(() => remoteStudyReport(remote, created.id), created.id, io.say);
    return printStudy(view, json, interrupt.interrupted);
  } finally {
    interrupt.release();
  }
}

async function missingNames(scope: WorkspaceScope, input: StudyInput): Promise<string | null> {
  for (const [entity, refs, list] of [
    ["target", input.targets, () => scope.targets.list()],
    ["workload", input.workloads, () => scope.workloads.list()],
  ] as const) {
    const known = new Set((await list()).map((x) => x.name));
    const defined = new Set(refs.filter((r) => typeof r !== "string").map((r) => (r as { name: string }).name));
    for (const [i, r] of refs.entries()) {
      if (typeof r === "string" && !known.has(r) && !defined.has(r)) {
        return `${entity}s.${i}: unknown ${entity} "${r}" (known: ${known.size ? [...known].join(", ") : "none yet"}; or give its full definition in the file)`;
      }
    }
  }
  return null;
}

/** A worker from before studies existed takes runs but not studies; say so instead of waiting forever. */
export async function waitForStudyWorker(queue: ReturnType<typeof createStudyQueue>) {
  const until = Date.now() + 15_000;
  while ((await queueWorkers(queue)).length === 0) {
    if (Date.now() > until) throw new Error("no worker takes studies (a worker from an older version is running?); restart the worker");
    await new Promise((r) => setTimeout(r, 300));
  }
}

/**
 * Polls the study until it is final, printing each run as it starts and ends, with the ETA. `load(false)` may
 * skip the merged results (the database can; the API always merges), `load(true)` is the final view.
 */
async function waitForStudy<V extends StudyViewAnswer>(
  load: (merged: boolean) => Promise<V>,
  studyId: string,
  say: (m: string) => void,
): Promise<V> {
  const seen = new Map<string, string>();
  let lastStatus = "";
  for (;;) {
    const view = await load(false);
    if (view.status !== lastStatus) {
      say(`study ${studyId.slice(0, 8)}: ${view.status}${view.error ? `: ${view.error}` : ""}`);
      lastStatus = view.status;
    }
    for (const r of view.runs) {
      const shown = r.status === "QUEUED" ? "" : isFinalRunStatus(r.status) ? r.status : "STARTED";
      if (!shown || seen.get(r.id) === shown) continue;
      seen.set(r.id, shown);
      if (shown === "ABORTED" && r.startedAt === null) continue; // never started: said once at the end
      const cell = view.cells[r.cell];
      const name = cell ? `${cell.target.name} x ${cell.workload.name}` : "?";
      const where = `run ${r.position ?? "?"} of ${view.runs.length}${r.round !== null ? ` (round ${r.round})` : ""}: ${name} #${r.repetition}`;
      const eta = view.progress.etaSeconds !== null ? `, ETA ${formatSeconds(view.progress.etaSeconds)}` : "";
      if (shown === "STARTED") say(`${where}: started${eta}`);
      else {
        const result = r.result;
        const res = result
          ? `: ${PROGRESS_FIGURES.map((f) => studyFigureText(f, result[f.key])).join(", ")}`
          : r.error
            ? `: ${r.error}`
            : "";
        const flags = r.flags.length ? ` [flags: ${r.flags.map((f) => f.code).join(", ")}]` : "";
        say(`${where}: ${r.status.toLowerCase()}${res}${flags}${eta}`);
      }
    }
    if (isStudySettled(view)) {
      const never = view.runs.filter((r) => r.status === "ABORTED" && r.startedAt === null).length;
      if (never) say(`${never} run${never === 1 ? "" : "s"} not started (aborted)`);
      return load(true);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function studyShow(args: string[], io: Io): Promise<number> {
  const { arg, json } = parse(args, io, "show");
  const { db, scope } = await openScope();
  try {
    const view = await scope.studies.view(arg).catch((err) => {
      if (err instanceof NotFoundError) throw io.usageError(`no study with id "${arg}"`);
      throw err;
    });
    console.log(json ? JSON.stringify(view, null, 2) : formatStudy(view));
    return 0;
  } finally {
    await db.$disconnect();
  }
}

async function studyAbort(args: string[], io: Io): Promise<number> {
  const { arg, json } = parse(args, io, "abort");
  const { db, scope } = await openScope();
  try {
    const r = await scope.studies.abort(arg).catch((err) => {
      if (err instanceof NotFoundError) throw io.usageError(`no study with id "${arg}"`);
      throw err;
    });
    if (json) console.log(JSON.stringify({ id: arg, ...r }));
    else io.say(r.aborted ? `study ${arg}: aborted (the run under way stops within seconds)` : `study ${arg} is already ${r.status}`);
    return 0;
  } finally {
    await db.$disconnect();
  }
}

export function formatSeconds(s: number): string {
  const total = Math.max(0, Math.round(s));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  return h ? `${h}h ${m}m` : m ? `${m}m ${sec}s` : `${sec}s`;
}

const num = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));

/**
 * "512.3 +- 10.2 (95% CI 487.0 to 537.6, t-log)" from 3 repetitions (the interval inside the figure's domain, and how
 * it was made: core's domain-interval.ts); "512.3 +- 10.2 (min-max 505.1 to 519.5; n = 2: not informative)" from 2;
 * the value alone from 1. With `decimals` (a catalog metric's) every figure has that many, else about three
 * significant digits.
 */
export function formatStats(s: SampleStats, unit = "", decimals?: number): string {
  if (s.mean === null) return "no data";
  const n = (v: number) => (decimals === undefined ? num(v) : v.toFixed(decimals));
  const u = unit ? ` ${unit}` : "";
  const i = s.interval;
  if (s.sd === null || !i || i.kind === "value") return `${n(s.mean)}${u} (1 repetition, no spread)`;
  if (i.kind === "min-max") return `${n(s.mean)} +- ${n(s.sd)}${u} (min-max ${n(i.low)} to ${n(i.high)}; n = ${s.n}: not informative)`;
  return `${n(s.mean)} +- ${n(s.sd)}${u} (95% CI ${n(i.low)} to ${n(i.high)}, ${i.kind})`;
}

/** What a finished run's progress line says of it, in this order: its throughput, p95 and goodput, as the cells name and write them. */
const PROGRESS_FIGURES = (["rps", "p95", "goodput"] as const).flatMap((key) => STUDY_CELL_FIGURES.filter((f) => f.key === key));

/**
 * `study show`: each cell's figures (core's STUDY_CELL_FIGURES: the metric catalog's entries studies show, then
 * goodput and failures; `figures` of an extended catalog in a test) as mean +- SD and 95% CI, and merged.
 */
export function formatStudy(view: StudyViewAnswer, figures: readonly StudyCellFigure<string>[] = STUDY_CELL_FIGURES): string {
  const p = view.progress;
  const lines = [
    `study ${view.id} "${view.name}": ${view.status}${view.error ? ` (${view.error})` : ""}`,
    `  ${view.order}${view.seed !== null ? `, seed ${view.seed}` : ""}, ${view.repetitions} repetitions, cool-down ${view.cooldownSeconds} s; ` +
      `${p.finished} of ${p.total} runs finished (${p.succeeded} succeeded, ${p.failed} failed, ${p.aborted} aborted)` +
      (p.etaSeconds !== null ? `, ETA ${formatSeconds(p.etaSeconds)}` : ""),
  ];
  for (const c of view.cells) {
    const stats: Partial<Record<string, SampleStats>> = c.stats;
    const succeeded = c.runs.filter((r) => r.result !== null).length;
    lines.push(`  ${c.target.name} x ${c.workload.name}: ${succeeded} of ${c.runs.length} repetitions succeeded`);
    for (const f of figures) {
      const s = stats[f.key];
      // A figure named by its unit (req/s) does not repeat it.
      lines.push(`    ${f.label.padEnd(8)} ${s ? formatStats(s, f.unit === f.label ? "" : f.unit, f.decimals) : "no data"}`);
    }
    // The merged histograms, read as the cells read a run (successful responses' latency).
    const merged = c.merged;
    if (merged)
      lines.push(`    merged   ${merged.requests} requests, ${figures.map((f) => studyFigureText(f, f.ofRun(merged))).join(", ")}`);
    // The same flag on several runs is listed once, with the repetitions it concerns.
    const byMessage = new Map<string, number[]>();
    for (const r of c.runs)
      for (const f of r.flags.filter((x) => !c.flags.some((y) => y.code === x.code)))
        byMessage.set(`${f.code}: ${f.message}`, [...(byMessage.get(`${f.code}: ${f.message}`) ?? []), r.repetition]);
    for (const f of c.flags) lines.push(`    flag     ${f.code}: ${f.message}`);
    for (const [text, reps] of byMessage) lines.push(`    flag     ${text} (run${reps.length === 1 ? "" : "s"} #${reps.join(", #")})`);
  }
  return lines.join("\n");
}
