// The CLI's remote mode (OPSBENCH_URL + OPSBENCH_TOKEN): the commands that go through a server's API. Imports no
// database, queue or local-process module: this is what the packed CLI (npm run cli:pack) holds, and what the
// monorepo's `opsbench` hands these commands to when OPSBENCH_URL is set. Exit codes: 0 ok, 1 failed, 2 bad input,
// 99 thresholds (or a --fail-on rule) failed.
import { parseArgs } from "node:util";
import type { RunViewAnswer, WindowSummaryAnswer } from "@opsbench/api";
import { type GateRule, STORED_QUANTILE_KEYS } from "@opsbench/core";
import { type RemoteModule, scriptEnvSchema, scriptSecretName } from "@opsbench/core";
import {
  type Remote,
  RemoteInputError,
  remoteImportK6,
  remotePutWorkload,
  remoteRenameWorkload,
  remoteRunReport,
  remoteStartRun,
  remoteWindowSummary,
} from "./remote-client";
import { IMPORT_K6_USAGE, printImport, readImportUpload } from "./import-k6-file";
import { bundleRemoteModules, httpModuleHosts } from "./remote-modules";
import { legacyWorkloadName, readScriptUpload, workloadNameFor } from "./script-upload";
import {
  baselineCommand,
  compareCommand,
  GATE_OPTIONS,
  GATE_USAGE,
  type GateOptions,
  gateAndReport,
  gateRules,
  ifNoBaselineOf,
  isHistoryGate,
  noBaselineNotice,
  reportJson,
  resolveBaseline,
} from "./gate-command";
import { EXTERNAL_RUN_USAGE, remoteExternalRun } from "./external-run";
import { baselineBranchOf, HISTORY_MIN_RUNS, historyBaseline, noHistoryNotice, seriesKeyFor } from "./history-baseline";
import { PROVENANCE_OPTIONS, PROVENANCE_USAGE, runProvenance } from "./provenance-flags";
import { exitCodeFor, formatSummary, pollRun, type RunReport, runSummaryJson } from "./run-report";
import { waitAbortingOnSignal } from "./run-interrupt";
import { parsing, UsageError } from "./usage-error";

export const REMOTE_USAGE = `  opsbench run --target NAME --workload NAME [--json]         run a saved workload against a target and wait
  opsbench run --target NAME --script PATH [--entry FILE] [--workload NAME] [--json]
                                                              run a k6 script with its local modules, data files and https modules
                                                              (or a folder, or a k6 archive .tar), saved as a workload named by the
                                                              entry's path in its git repository (tests/api/smoke.js: tests.api.smoke.js)
               [--env KEY=VALUE]... [--secret NAME]...        the script's __ENV: values kept with the run, and workspace secrets
                                                              (saved by an owner; shown as ***)
               ${PROVENANCE_USAGE}
                                                              the run's provenance; CI's own variables (GitHub Actions, GitLab CI)
                                                              give commit, branch, PR and build URL, a flag wins over them
${EXTERNAL_RUN_USAGE}
  opsbench runs show RUN_ID [--from S --to S] [--json]        print a run's summary (of seconds S..S after the load started)
${GATE_USAGE}
${IMPORT_K6_USAGE}`;

/** The commands remote mode answers; the monorepo's CLI sends these here when OPSBENCH_URL is set. */
export function isRemoteCommand(argv: readonly string[]): boolean {
  const [command, sub] = argv;
  return (
    command === "run" ||
    (command === "runs" && sub === "show") ||
    (command === "import" && sub === "k6") ||
    command === "compare" ||
    command === "baseline"
  );
}

export interface RemoteIo {
  say: (m: string) => void;
  out: (m: string) => void;
}

export async function remoteCommand(remote: Remote, argv: string[], io: RemoteIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "run" && rest.includes("--external"))
    return asUsage(remoteExternalRun(remote, rest, io, (view, values) => reportRun(remote, view, values, [], io)));
  if (command === "run") return remoteRun(remote, rest, io);
  if (command === "runs" && rest[0] === "show") return remoteRunsShow(remote, rest.slice(1), io);
  if (command === "compare") return asUsage(compareCommand(remote, rest, io));
  if (command === "import" && rest[0] === "k6") return remoteImportK6Command(remote, rest.slice(1), io);
  if (command === "baseline") return asUsage(baselineCommand(remote, rest, io));
  throw new UsageError(`unknown command "${argv.join(" ")}"`);
}

/** A server's refusal of the input (unknown name, bad id) is a usage error, as it is against the database. */
export async function asUsage<T>(p: Promise<T>): Promise<T> {
  return p.catch((err) => {
    throw err instanceof RemoteInputError ? new UsageError(err.message) : err;
  });
}

async function remoteRun(remote: Remote, args: string[], io: RemoteIo): Promise<number> {
  const { values } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      options: {
        target: { type: "string" },
        workload: { type: "string" },
        script: { type: "string" },
        entry: { type: "string" },
        env: { type: "string", multiple: true },
        secret: { type: "string", multiple: true },
        json: { type: "boolean", default: false },
        ...GATE_OPTIONS,
        ...PROVENANCE_OPTIONS,
      },
    }),
  );
  const rules = gateRules(values);
  const provenance = runProvenance(values);
  const target = values.target;
  if (!target || !(values.workload || values.script))
    throw new UsageError("run needs --target NAME and --workload NAME (a saved workload) or --script PATH");
  if (values.entry && !values.script) throw new UsageError("--entry goes with --script FOLDER");
  const scriptEnv = scriptEnvOf(values.env ?? [], values.secret ?? []);
  const read = values.script ? readScriptUpload(values.script, values.entry) : null;
  const workload = values.workload ?? (read && values.script ? workloadNameFor(read, values.script) : "");
  // https modules are fetched now (the sandbox has no network), before anything is saved or started.
  const bundled = read ? await bundleRemoteModules(read, { httpHosts: httpModuleHosts(process.env.OPSBENCH_HTTP_MODULE_HOSTS) }) : null;
  const upload = bundled?.upload ?? null;
  for (const m of bundled?.remoteModules ?? []) io.say(`bundled ${m.url} (sha256 ${m.sha256.slice(0, 12)}...)`);
  // Upgrading from the CLI that named it script-<file>: the old workload, found once, takes the new name, with its
  // runs and baselines (docs/ci.md "Workload names").
  if (read && values.script && !values.workload) {
    const legacy = legacyWorkloadName(read, values.script);
    if (legacy !== workload && (await remoteRenameWorkload(remote, legacy, workload)) === "renamed")
      io.say(`renamed workload ${legacy} to ${workload} (its runs and baselines go with it)`);
  }
  // The baseline is looked up before anything is saved or loaded: none yet is said and the run goes on without a
  // comparison (--if-no-baseline pass, the default), or is bad input (2) with --if-no-baseline fail.
  let noBaseline: string | null = null;
  if (isHistoryGate(values) && ifNoBaselineOf(values) === "fail") {
    // History with --if-no-baseline fail: too few runs on the baseline branch is exit 2 before any load.
    const key = seriesKeyFor(provenance.series, target, workload);
    const h = key
      ? await asUsage(historyBaseline(remote, key, baselineBranchOf(values["baseline-branch"]).branch, Number(values["baseline-runs"])))
      : null;
    if (h && h.runIds.length < HISTORY_MIN_RUNS) throw new UsageError(`${noHistoryNotice(h)} (--if-no-baseline fail)`);
  } else if (values.baseline && !isHistoryGate(values)) {
    const found = await asUsage(resolveBaseline(remote, values.baseline, target, workload, values));
    if (found === null) {
      noBaseline = noBaselineNotice(target, workload, provenance.branch);
      io.say(noBaseline);
    }
    values.baseline = found ?? undefined;
  }
  if (upload) {
    const count = Object.keys(upload.files).length;
    io.say(`checking ${upload.entry}${count ? ` and ${count} file(s) beside it` : ""} on ${remote.url} (k6 inspect)...`);
    const remoteModules: RemoteModule[] = bundled?.remoteModules ?? [];
    await asUsage(
      remotePutWorkload(remote, {
        name: workload,
        spec: { kind: "script", ...upload, ...(remoteModules.length ? { remoteModules } : {}) },
      }),
    );
    io.say(`saved as workload ${workload}`);
  }
  // From here a SIGINT or SIGTERM (a cancelled CI job) aborts the run on the server before the CLI exits.
  const view = await waitAbortingOnSignal(
    remote,
    io.say,
    async () => {
      const id = await asUsage(remoteStartRun(remote, target, workload, provenance, scriptEnv));
      io.say(`run ${id.slice(0, 8)} created on ${remote.url}`);
      return { id };
    },
    ({ id }, polling, signal) => pollRun(() => remoteRunReport(polling, id), io.say, signal),
  );
  return reportRun(remote, view, values, rules, io, noBaseline);
}

/** --env KEY=VALUE and --secret NAME, checked as the server checks them; a bad one is a usage error naming it. */
export function scriptEnvOf(pairs: string[], secrets: string[]): { env: Record<string, string>; secrets: string[] } {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--env: "${pair}" is not KEY=VALUE`);
    const key = pair.slice(0, at);
    if (key in env) throw new UsageError(`--env: ${key} is given twice`);
    env[key] = pair.slice(at + 1);
  }
  const checked = scriptEnvSchema.safeParse(env);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new UsageError(`--env: ${issue.path.length ? `${String(issue.path[0])}: ` : ""}${issue.message}`);
  }
  for (const name of secrets) {
    const ok = scriptSecretName.safeParse(name);
    if (!ok.success) throw new UsageError(`--secret: ${name}: ${ok.error.issues[0]?.message}`);
    if (name in env) throw new UsageError(`--secret: ${name} is also given with --env`);
  }
  if (new Set(secrets).size !== secrets.length) throw new UsageError("--secret: a secret is named twice");
  return { env, secrets };
}

/** A finished run's output (its summary, or JSON) and exit code, with the gate and the reports when asked for. */
async function reportRun(
  remote: Remote,
  view: RunViewAnswer,
  values: GateOptions & { json: boolean },
  rules: GateRule[],
  io: RemoteIo,
  noBaseline: string | null = null,
) {
  if (!values.baseline && !values["baseline-runs"] && !values["pr-comment"] && !values.junit && !values.summary && !noBaseline) {
    printRun(view, values.json, io);
    return exitCodeFor(view);
  }
  const { code, report } = await gateAndReport(remote, view, values, rules, io, noBaseline);
  io.out(values.json ? JSON.stringify(reportJson(report)) : formatSummary(view));
  return code;
}

export function printRun(view: RunReport, json: boolean, io: RemoteIo): void {
  io.out(json ? JSON.stringify(runSummaryJson(view)) : formatSummary(view));
}

async function remoteRunsShow(remote: Remote, args: string[], io: RemoteIo): Promise<number> {
  const { values, positionals } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { json: { type: "boolean", default: false }, from: { type: "string" }, to: { type: "string" } },
    }),
  );
  if (positionals.length !== 1) throw new UsageError("runs show needs one RUN_ID");
  const id = positionals[0]!;
  if (values.from === undefined && values.to === undefined) {
    const view = await asUsage(remoteRunReport(remote, id));
    io.out(values.json ? JSON.stringify(runSummaryJson(view), null, 2) : formatSummary(view));
    return 0;
  }
  const { from, to } = windowOf(values.from, values.to);
  const w = await asUsage(remoteWindowSummary(remote, id, from, to));
  if (!w) throw new UsageError(`run ${id} has no results`);
  io.out(values.json ? JSON.stringify(windowJson(id, w), null, 2) : formatWindow(id, from, to, w));
  return 0;
}

/** --from S --to S: seconds after the load started, checked. */
export function windowOf(fromText: string | undefined, toText: string | undefined): { from: number; to: number } {
  const from = Number(fromText ?? 0);
  const to = Number(toText);
  if (!Number.isFinite(from) || from < 0) throw new UsageError(`--from must be a number of seconds >= 0, not "${fromText}"`);
  if (!Number.isFinite(to) || to <= from) throw new UsageError(`--to must be a number of seconds after --from, not "${toText ?? ""}"`);
  return { from, to };
}

/** What `runs show --from --to --json` prints, from the database or the API. */
export const windowJson = (id: string, w: WindowSummaryAnswer) => ({
  id,
  fromSeconds: w.fromSeconds,
  toSeconds: w.toSeconds,
  requests: w.requests,
  failures: w.failures,
  goodput: w.goodput,
  rps: w.rps,
  latencyMs: w.latencyMs,
});

export function formatWindow(id: string, from: number, to: number, w: WindowSummaryAnswer): string {
  return `run ${id}, seconds ${from}-${to}: requests ${w.requests}, failed ${w.failures}, goodput ${w.goodput.toFixed(2)} %, ${STORED_QUANTILE_KEYS.map((q) => `${q} ${w.latencyMs[q]} ms`).join(", ")}`;
}

/** `import k6 FILE` against a server: the file stays here, only its aggregate travels (POST /api/v1/imports/k6). */
async function remoteImportK6Command(remote: Remote, args: string[], io: RemoteIo): Promise<number> {
  const read = await readImportUpload(args, { say: io.say, usageError: (m) => new UsageError(m) });
  if (typeof read === "number") return read;
  const id = await asUsage(remoteImportK6(remote, read.upload));
  return printImport(await remoteRunReport(remote, id), read.upload, read.json);
}
