// `opsbench run --external` against a server (OPSBENCH_URL + OPSBENCH_TOKEN): a run fed by load started elsewhere
// (opsbench-engine or a stock k6 on CI runners or a laptop, a Kubernetes Job of engine pods). Creates it over HTTP
// (POST /api/v1/runs/external), prints what each generator needs, then waits until every generator has sent its end: the server judges the script's thresholds on the merged
// result of all of them, and the exit code is k6's (0 passed, 99 a threshold failed, 1 the run failed). No database
// module: the packed CLI holds this. The repository's CLI without OPSBENCH_URL prints the same settings from the
// database (external-run-command.ts).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { ExternalRunCreated } from "@opsbench/api";
import { PROVENANCE_OPTIONS, PROVENANCE_USAGE, type ProvenanceFlags, runProvenance } from "./provenance-flags";
import { type Remote, remoteCreateExternalRun, remoteRunReport } from "./remote-client";
import { pollRun } from "./run-report";
import { waitAbortingOnSignal } from "./run-interrupt";
import { parsing, UsageError } from "./usage-error";

export const EXTERNAL_RUN_USAGE = `  opsbench run --external [--workload NAME] [--name N] [--parallelism N] [--url BASE] [--image IMG] [--script-configmap CM]
               [--valid-hours H] [--no-wait] [--json] [--junit FILE] [--summary FILE]
               ${PROVENANCE_USAGE}
                                                              a run fed by N load engines started elsewhere: prints each one's
                                                              opsbench-engine (or stock k6 | opsbench ingest) command line and a
                                                              Kubernetes indexed Job, waits for them all, and exits as k6 would on
                                                              the script's thresholds judged on the merged result`;

/** The options of `run --external`; the database's command (external-run-command.ts) takes the same minus the waiting. */
export const EXTERNAL_RUN_OPTIONS = {
  external: { type: "boolean" },
  workload: { type: "string" },
  name: { type: "string" },
  url: { type: "string" },
  parallelism: { type: "string", default: "1" },
  image: { type: "string", default: "opsbench-engine-job:latest" },
  "script-configmap": { type: "string", default: "opsbench-script" },
  // No default: the server's is the run's planned duration plus a margin, and the most it allows.
  "valid-hours": { type: "string" },
  ...PROVENANCE_OPTIONS,
} as const;

/** The run to create, from the options, checked (a bad value is a usage error). */
export function externalRunRequest(
  values: {
    workload?: string;
    name?: string;
    url?: string;
    parallelism: string;
    image: string;
    "script-configmap": string;
    "valid-hours"?: string;
  } & ProvenanceFlags,
) {
  const generators = Number(values.parallelism);
  const validHours = values["valid-hours"] === undefined ? undefined : Number(values["valid-hours"]);
  if (!Number.isInteger(generators) || generators < 1 || generators > 1000)
    throw new UsageError("--parallelism must be a whole number from 1 to 1000");
  if (validHours !== undefined && !(validHours > 0 && validHours <= 24 * 30))
    throw new UsageError("--valid-hours must be more than 0 and at most 720");
  if (values.url !== undefined && !URL.canParse(values.url))
    throw new UsageError(
      `--url must be the opsbench server's address as k6 reaches it (e.g. https://opsbench.example.com), not "${values.url}"`,
    );
  return {
    ...(values.workload ? { workload: values.workload } : {}),
    ...(values.name ? { name: values.name } : {}),
    ...(values.url ? { ingestBaseUrl: values.url } : {}),
    generators,
    image: values.image,
    scriptConfigmap: values["script-configmap"],
    ...(validHours === undefined ? {} : { validHours }),
    provenance: runProvenance(values),
  };
}

/**
 * Prints what the generators need on stderr (the token is shown once); writes the workload's script beside. The
 * Kubernetes Job goes to `jobTo`: stdout when the command ends at once (so `| kubectl apply -f -` works), else stderr.
 */
export function printExternalSettings(created: ExternalRunCreated, say: (m: string) => void, jobTo: (m: string) => void): void {
  say(`run ${created.id}: waiting for its load to feed it (token valid until ${created.expiresAt}, shown once)`);
  if (created.script) {
    writeFileSync(created.script.file, created.script.source);
    say(`wrote the workload's k6 script to ${created.script.file}`);
  } else say("bring your own k6 script (script.js below)");
  const several = created.k6Commands.length > 1;
  say(`\nopsbench-engine command line${several ? "s, one per generator" : ""} (npm run engine:build, or the image of infra/engine-job):`);
  for (const line of created.k6Commands) say(`  ${line}`);
  say(`\nor with a stock k6, its JSON output piped into this CLI${several ? " (one per generator)" : ""}:`);
  for (const line of created.stockK6Commands) say(`  ${line}`);
  say("\nKubernetes indexed Job of engine pods (its ConfigMap first: kubectl create configmap NAME --from-file=script.js=YOUR_SCRIPT):");
  jobTo(created.kubernetesJob);
}

export async function remoteExternalRun(
  remote: Remote,
  args: string[],
  io: { say: (m: string) => void; out: (m: string) => void },
  report: (
    view: Awaited<ReturnType<typeof remoteRunReport>>,
    values: { json: boolean; junit?: string; summary?: string },
  ) => Promise<number>,
): Promise<number> {
  const { values } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      options: {
        ...EXTERNAL_RUN_OPTIONS,
        "no-wait": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        junit: { type: "string" },
        summary: { type: "string" },
      },
    }),
  );
  const request = externalRunRequest(values);
  const create = () => remoteCreateExternalRun(remote, { ...request, ingestBaseUrl: request.ingestBaseUrl ?? remote.url });
  if (values["no-wait"]) {
    printExternalSettings(await create(), io.say, io.out);
    return 0;
  }
  // While it waits, a SIGINT or SIGTERM aborts the run on the server (its generators' sends are then refused).
  const view = await waitAbortingOnSignal(
    remote,
    io.say,
    async () => {
      const created = await create();
      printExternalSettings(created, io.say, io.say);
      io.say(`\nwaiting for ${created.k6Commands.length} generator(s) to send their results (${remote.url}/runs/${created.id})...`);
      return created;
    },
    (created, polling, signal) => pollRun(() => remoteRunReport(polling, created.id), io.say, signal),
  );
  for (const t of view.thresholds) io.say(`  threshold ${t.metric}: ${t.expression} ${t.ok ? "passed" : "FAILED"} (merged result)`);
  return report(view, values);
}
