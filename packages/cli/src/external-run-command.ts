// `opsbench run --external`: a run fed by a k6 started elsewhere (CI, a laptop, a k6-operator TestRun).
// Creates the run and its ingest token, then prints what to start: the k6 command line (the opsbench k6
// build with its output pointed at the run's ingest endpoint) and the k6-operator TestRun
// (infra/k6-operator/testrun.yaml filled in). The TestRun goes to stdout, so it can be piped to kubectl.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { compileK6Script, workloadSpec } from "@opsbench/core";
import { createDb, createExternalRun, defaultWorkspaceId, DEFAULT_INGEST_TOKEN_HOURS, workspaceScope } from "@opsbench/db";
import { loadEnv, repoRoot } from "./env";

interface Io {
  say: (m: string) => void;
  usageError: (m: string) => Error;
}

export const EXTERNAL_RUN_USAGE = `  opsbench run --external [--workload NAME] [--name N] [--url BASE] [--parallelism N] [--image IMG] [--script-configmap CM] [--valid-hours H]
                                                              a run fed by k6 started elsewhere: prints the k6 command line and a k6-operator TestRun`;

export async function externalRunCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      external: { type: "boolean" },
      workload: { type: "string" },
      name: { type: "string" },
      url: { type: "string", default: "http://localhost:3000" },
      parallelism: { type: "string", default: "1" },
      image: { type: "string", default: "opsbench-k6:latest" },
      "script-configmap": { type: "string", default: "opsbench-script" },
      "valid-hours": { type: "string", default: String(DEFAULT_INGEST_TOKEN_HOURS) },
    },
  });
  const parallelism = Number(values.parallelism);
  const validHours = Number(values["valid-hours"]);
  if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism > 1000)
    throw io.usageError("--parallelism must be a whole number from 1 to 1000");
  if (!(validHours > 0 && validHours <= 24 * 30)) throw io.usageError("--valid-hours must be more than 0 and at most 720");
  let base: URL;
  try {
    base = new URL(values.url);
  } catch {
    throw io.usageError(`--url must be the opsbench server's address (e.g. https://opsbench.example.com), not "${values.url}"`);
  }
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 2 });
  try {
    const workspaceId = await defaultWorkspaceId(db);
    const workload = values.workload ? await workspaceScope(db, workspaceId).workloads.byName(values.workload) : null;
    const run = await createExternalRun(db, workspaceId, {
      name: values.name ?? (workload ? `${workload.name} (external)` : "external"),
      workloadId: workload?.id ?? null,
      ...(workload ? { workloadSpec: workload.spec } : {}),
      validHours,
    });
    let script = "script.js";
    if (workload) {
      script = `opsbench-${workload.name}.js`;
      writeFileSync(script, compileK6Script(workloadSpec.parse(workload.spec)));
    }
    const ingestUrl = new URL(`/api/v1/runs/${run.id}/ingest`, base).toString();
    io.say(`run ${run.id}: waiting for k6 to feed it (token valid until ${run.expiresAt.toISOString()}, shown once)`);
    io.say(workload ? `wrote the workload's k6 script to ${script}` : "bring your own k6 script (script.js below)");
    io.say("\nk6 command line (the opsbench k6 build: npm run k6:build, or the image in infra/k6-operator):");
    io.say(`  K6_OPSBENCH_TOKEN=${run.token} k6 run --out opsbench=${ingestUrl} ${script}`);
    io.say("  on several machines: add --execution-segment i/N:(i+1)/N --execution-segment-sequence 0,1/N,...,1 to each");
    io.say("\nk6-operator TestRun (stdout):");
    const template = readFileSync(path.join(repoRoot, "infra/k6-operator/testrun.yaml"), "utf8");
    console.log(
      fillTemplate(template, {
        NAME: `opsbench-${run.id.slice(0, 8)}`,
        PARALLELISM: String(parallelism),
        SCRIPT_CONFIGMAP: values["script-configmap"],
        IMAGE: values.image,
        INGEST_URL: ingestUrl,
        TOKEN: run.token,
      }),
    );
    return 0;
  } finally {
    await db.$disconnect();
  }
}

/** ${KEY} -> its value; a placeholder without a value is left as it is (and would fail kubectl's validation). */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}
