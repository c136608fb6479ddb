// Fault injection: the worker SIGKILLed in the middle of a study (real Postgres,
// Redis, worker, k6). At the restart the run under way ends FAILED (partial), the
// study is redelivered, resumes with the runs not yet finished and reaches a final state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, defaultWorkspaceId, workspaceScope, type Db, type WorkspaceScope } from "@opsbench/db";
import { createStudyQueue, startStudy } from "@opsbench/jobs";
import { shortRamp, taewaTarget, testDatabaseUrl, testRedisUrl, waitForFinal } from "../helpers";
import { expectAllSettled, killWorker, startUpPass, startWorker, waitFor, waitForLoad, type WorkerProcess } from "./fault-kit";

let db: Db;
let scope: WorkspaceScope;
const workers: WorkerProcess[] = [];
const runIds: string[] = [];

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 3 });
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  await scope.targets.put(taewaTarget("crash-taewa"));
  await scope.workloads.put(shortRamp("crash-mid", { holdSeconds: 8 }));
});

afterAll(async () => {
  for (const w of workers) await killWorker(w, "SIGTERM");
  await db.$disconnect();
});

const start = async (name: string) => {
  const w = await startWorker(name);
  workers.push(w);
  return w;
};

describe("worker SIGKILLed mid-study", () => {
  it("the run under way ends FAILED at the restart, the study resumes with the rest and reaches a final state", async () => {
    const studyQueue = createStudyQueue(testRedisUrl());
    try {
      const a = await start("study-a");
      const { study, runs } = await startStudy(scope, studyQueue, {
        name: "crash-study",
        targets: ["crash-taewa"],
        workloads: ["crash-mid"],
        repetitions: 2,
        order: "sequential",
        cooldownSeconds: 0,
        baselineWaitSeconds: 10,
      });
      runIds.push(...runs.map((r) => r.id));
      const [first, second] = runs;
      await waitForLoad(db, first!.id, 3, a);
      await killWorker(a);
      const b = await start("study-b");
      expect(startUpPass(b).failed).toBe(1);
      expect((await waitForFinal(db, first!.id, 1000)).status).toBe("FAILED");
      // BullMQ redelivers the study (its dead worker's lock was released): it resumes with the second run.
      expect((await waitForFinal(db, second!.id, 120_000)).status).toBe("SUCCEEDED");
      const row = await waitFor("the study to be final", async () => {
        const s = await db.study.findUniqueOrThrow({ where: { id: study.id } });
        return ["SUCCEEDED", "FAILED", "ABORTED"].includes(s.status) && s;
      });
      expect(row.status).toBe("FAILED");
      expect(row.error).toBe("1 of 2 runs did not succeed");
      await expectAllSettled(db, runIds);
    } finally {
      await studyQueue.close();
    }
  });
});
