// `opsbench demo`: starts the web app and a worker, runs the demo study (DevOps vs
// NoOps in miniature, core's studies/demo-study.ts) through the study queue like any other study,
// shows one progress line while it runs, and ends on the comparison: its address
// and a three-line verdict. Exit 0 when every run succeeded, 1 otherwise, 130 on Ctrl-C.
import { StudyInterrupt } from "./study-interrupt";
import { parseArgs } from "node:util";
import {
  DEMO_FUNCTION,
  DEMO_RUN_SECONDS,
  DEMO_SERVICE,
  demoStudy,
  isFinalRunStatus,
  STUDY_CELL_FIGURES,
  studyFigureText,
  studyInput,
} from "@opsbench/core";
import { createDb, defaultWorkspaceId, workspaceScope, type StudyRunView, type StudyView, type WorkspaceScope } from "@opsbench/db";
import { createRunQueue, createStudyQueue, startStudy } from "@opsbench/jobs";
import { demoVerdict, parseComparison } from "./demo-verdict";
import { loadEnv } from "./env";
import { ensureWorker, startWeb, type Managed } from "./processes";
import { formatSeconds, waitForStudyWorker } from "./study-command";
import { clock, liveLine, SPINNER, type LiveLine } from "./terminal-progress";

export const DEMO_USAGE =
  "  opsbench demo [--no-serve] [--time-scale F]               run the demo study (DevOps vs NoOps, about 10 min) and open its comparison\n" +
  "                                                              (--time-scale 0.1: 12 s runs instead of 2 min, for a quick look)";

interface Io {
  usageError: (m: string) => Error;
}

function parse(args: string[], io: Io) {
  let values: { "no-serve"?: boolean; "time-scale"?: string };
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: { "no-serve": { type: "boolean", default: false }, "time-scale": { type: "string" } },
    }));
  } catch (err) {
    throw io.usageError((err as Error).message);
  }
  const timeScale = Number(values["time-scale"] ?? 1);
  if (!Number.isFinite(timeScale) || timeScale < 0.05 || timeScale > 10)
    throw io.usageError(`--time-scale must be a number from 0.05 to 10, not "${values["time-scale"]}"`);
  return { serve: !values["no-serve"], timeScale };
}

export async function demoCommand(args: string[], io: Io): Promise<number> {
  const { serve, timeScale } = parse(args, io);
  const out = liveLine();
  const say = (m: string) => out.say(`demo: ${m}`);
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 3 });
  const runQueue = createRunQueue(env.REDIS_URL);
  const studyQueue = createStudyQueue(env.REDIS_URL);
  const children: Managed[] = [];
  const scope = workspaceScope(db, await defaultWorkspaceId(db));
  const interrupt = new StudyInterrupt(scope, {
    say,
    notice: "stopping (the run under way is stopped and torn down; Ctrl-C again to leave at once)...",
    secondSignalExits: true,
  });
  try {
    const web = await startWeb(env, say);
    if (web.managed) children.push(web.managed);
    say(`web app at ${web.url}`);
    const worker = await ensureWorker(env, runQueue, say);
    if (worker) children.push(worker);
    await waitForStudyWorker(studyQueue);
    if (interrupt.interrupted) return 130;

    const created = await startStudy(scope, studyQueue, studyInput.parse(demoStudy(timeScale)));
    const studyId = created.study.id;
    await interrupt.follow(studyId);
    const first = await scope.studies.view(studyId, { merged: false });
    say(
      `${DEMO_SERVICE} (autoscaled 1-4 replicas, GKE prices) vs ${DEMO_FUNCTION} (scale to zero, Cloud Run prices), ` +
        `IoT Spike load of ${formatSeconds(DEMO_RUN_SECONDS * timeScale)} each, 2 repetitions interleaved: ` +
        `${created.runs.length} runs, about ${formatSeconds(first.progress.etaSeconds ?? 0)}`,
    );
    say(`watch it at ${web.url}/studies/${studyId}`);

    const view = await followStudy(scope, studyId, out);
    if (interrupt.interrupted) return 130;
    const compareUrl = `${web.url}/compare?study=${studyId}`;
    if (view.status !== "SUCCEEDED") {
      say(
        `the study ended ${view.status}${view.error ? `: ${view.error}` : ""}; ${view.progress.succeeded} of ${view.runs.length} runs succeeded`,
      );
      say(`see ${web.url}/studies/${studyId}`);
      return 1;
    }
    const res = await fetch(`${web.url}/api/v1/comparisons?study=${studyId}`, { signal: AbortSignal.timeout(60_000) });
    if (!res.ok) throw new Error(`the comparison did not load (HTTP ${res.status}): ${await res.text()}`);
    const verdict = demoVerdict(parseComparison(await res.json()));
    say(`done: ${view.runs.length} of ${view.runs.length} runs succeeded`);
    for (const line of verdict) console.log(`  ${line}`);
    console.log(`comparison: ${compareUrl}`);
    if (!serve || children.length === 0) return 0;
    interrupt.release();
    out.say(`serving ${web.url} until Ctrl-C`);
    await new Promise<void>((resolve) => process.once("SIGINT", resolve));
    return 0;
  } finally {
    interrupt.release();
    await Promise.all(children.map((c) => c.stop()));
    await runQueue.close();
    await studyQueue.close();
    await db.$disconnect();
  }
}

const PHASES: Record<string, string> = { PROVISIONING: "deploying", RUNNING: "load", ANALYZING: "analysing" };

/**
 * Polls the study until it is final. On a terminal one live line shows the run under
 * way (run i of n, its phase, ETA) and each finished run leaves one line; elsewhere
 * each run leaves a line when it starts its load and when it ends.
 */
async function followStudy(scope: WorkspaceScope, studyId: string, out: LiveLine): Promise<StudyView> {
  const said = new Map<string, string>();
  let tick = 0;
  for (;;) {
    const view = await scope.studies.view(studyId, { merged: false });
    const eta = view.progress.etaSeconds ? ` · ETA ${formatSeconds(view.progress.etaSeconds)}` : "";
    for (const r of view.runs) {
      const key = isFinalRunStatus(r.status) ? r.status : r.status === "RUNNING" ? "RUNNING" : null;
      if (!key || said.get(r.id) === key || (r.status === "ABORTED" && !r.startedAt)) continue;
      said.set(r.id, key);
      if (key === "RUNNING" && out.live) continue;
      out.say(`${runLabel(view, r)} · ${key === "RUNNING" ? `load${eta}` : finished(r)}`);
    }
    const current = view.runs.find((r) => !isFinalRunStatus(r.status) && r.status !== "QUEUED");
    if (current) {
      const phase = PHASES[current.status] ?? current.status.toLowerCase();
      const since = current.startedAt ? (Date.now() - Date.parse(current.startedAt)) / 1000 : 0;
      out.update(`${runLabel(view, current)} · ${phase} ${SPINNER[tick++ % SPINNER.length]} ${clock(since)}${eta}`);
    } else if (view.runs.some((r) => r.status === "QUEUED")) out.update(`cooling down before the next run${eta}`);
    if (view.status !== "QUEUED" && view.status !== "RUNNING" && view.runs.every((r) => isFinalRunStatus(r.status))) {
      out.update("");
      return view;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const runLabel = (view: StudyView, r: StudyRunView) =>
  `run ${r.position ?? "?"} of ${view.runs.length} · ${view.cells[r.cell]?.target.name ?? "?"} #${r.repetition}`;

/** What the line of a finished run says of it: p95 and goodput, as the study's cells name and write them. */
const FINISHED_FIGURES = STUDY_CELL_FIGURES.filter((f) => f.key === "p95" || f.key === "goodput");

function finished(r: StudyRunView): string {
  const res = r.result;
  const flags = r.flags.length ? ` [${r.flags.map((f) => f.code).join(", ")}]` : "";
  if (!res) return `${r.status.toLowerCase()}${r.error ? `: ${r.error}` : ""}${flags}`;
  return `${r.status.toLowerCase()}: ${res.requests.toLocaleString("en")} requests, ${FINISHED_FIGURES.map((f) => studyFigureText(f, res[f.key])).join(", ")}${flags}`;
}
