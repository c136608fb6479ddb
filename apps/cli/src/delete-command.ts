// `opsbench runs delete ID`, `study delete ID`, `targets delete NAME`, `workloads delete NAME`: the same
// deletes as the API (a run or study under way is aborted first; a target or workload that runs use is refused).
import { ConflictError, createDb, defaultWorkspaceId, NotFoundError, workspaceScope } from "@opsbench/db";
import { createRunQueue, createStudyQueue, deleteRun, deleteStudy } from "@opsbench/jobs";
import { loadEnv } from "./env";

export type DeletedKind = "run" | "study" | "target" | "workload";

export const DELETE_USAGE = `  opsbench runs delete ID | study delete ID | targets delete NAME | workloads delete NAME
                                                             delete (a run or study under way is aborted first)`;

/** Deletes one thing; 0 when deleted, 2 when there is no such thing, 1 when it was refused (still used, still running). */
export async function deleteCommand(
  kind: DeletedKind,
  args: string[],
  opts: { say: (m: string) => void; usageError: (m: string) => Error },
) {
  if (args.length !== 1) throw opts.usageError(`${kind} delete needs one ${kind === "run" || kind === "study" ? "ID" : "NAME"}`);
  const key = args[0]!;
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 2 });
  const runQueue = createRunQueue(env.REDIS_URL);
  const studyQueue = createStudyQueue(env.REDIS_URL);
  try {
    const scope = workspaceScope(db, await defaultWorkspaceId(db));
    if (kind === "run") {
      const r = await deleteRun(scope, runQueue, key);
      opts.say(`run ${key} deleted (with its series; ${r.shareLinks} share link(s))`);
    } else if (kind === "study") {
      const r = await deleteStudy(scope, studyQueue, key);
      opts.say(`study ${key} deleted with its ${r.runs} run(s) (${r.shareLinks} share link(s))`);
    } else {
      const r = kind === "target" ? await scope.deletion.deleteTarget(key) : await scope.deletion.deleteWorkload(key);
      opts.say(`${kind} "${r.name}" deleted`);
    }
    return 0;
  } catch (err) {
    if (err instanceof NotFoundError) throw opts.usageError(err.message);
    if (err instanceof ConflictError) {
      opts.say(`not deleted: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await Promise.all([runQueue.close(), studyQueue.close()]);
    await db.$disconnect();
  }
}
