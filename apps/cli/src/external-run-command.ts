// `opsbench run --external` in the repository without OPSBENCH_URL: the same run and settings as against a server
// (external-run.ts, POST /api/v1/runs/external), created in the database of this checkout. It prints and exits (the
// Kubernetes Job on stdout, so it can be piped to kubectl); waiting for the generators and the thresholds' exit code are the
// server mode's.
import { parseArgs } from "node:util";
import { createDb, defaultWorkspaceId, NotFoundError, workspaceScope } from "@opsbench/db";
import { loadEnv } from "./env";
import { EXTERNAL_RUN_OPTIONS, externalRunRequest, printExternalSettings } from "./external-run";
import { parsing, UsageError } from "./usage-error";

export { EXTERNAL_RUN_USAGE } from "./external-run";

export async function externalRunCommand(args: string[], io: { say: (m: string) => void }): Promise<number> {
  const { values } = parsing(() => parseArgs({ args, strict: true, options: EXTERNAL_RUN_OPTIONS }));
  const request = externalRunRequest(values);
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 2 });
  try {
    const scope = workspaceScope(db, await defaultWorkspaceId(db));
    const created = await scope.runs
      .createExternal({ ...request, workloadName: request.workload, baseUrl: request.ingestBaseUrl ?? "http://localhost:3000" })
      .catch((err: unknown) => {
        throw err instanceof NotFoundError ? new UsageError(`no workload named "${err.key}"`) : err;
      });
    printExternalSettings(created, io.say, console.log);
    return 0;
  } finally {
    await db.$disconnect();
  }
}
