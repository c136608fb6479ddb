import { pageOf, type StudyInput } from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { abortStudy, createSingleCellStudy, createStudy } from "../studies/study-store";
import { parseStudyJson, parseStudyWithRuns } from "../studies/study-json";
import { loadStudyTables } from "../studies/study-tables";
import { loadStudyView } from "../studies/study-view";
import { earlierRunCv } from "../studies/study-plan";
import { isUuid, type WorkspaceAccess } from "./workspace-access";
import { afterNewest, limitOf, NEWEST_FIRST, newestKey, type PageArgs } from "./page-where";

/** A workspace's studies. */
export function studiesScope(db: Db, workspaceId: string, access: WorkspaceAccess) {
  return {
    /** A study of one target x one workload x `repetitions` runs in sequence (study-store.ts). */
    createSingleCell: (args: { name: string; targetId: string; workloadId: string; repetitions?: number }) =>
      createSingleCellStudy(db, workspaceId, args),
    get: async (id: string) => {
      const s = isUuid(id)
        ? await db.study.findFirst({ where: { id, workspaceId }, include: { runs: { orderBy: { repetition: "asc" } } } })
        : null;
      if (!s) throw new NotFoundError("study", id);
      return parseStudyWithRuns(s);
    },
    /** The workspace's studies, newest first, with their runs' statuses (the studies list page). */
    list: async (take = 50) =>
      (
        await db.study.findMany({
          where: { workspaceId },
          orderBy: NEWEST_FIRST,
          take,
          include: { runs: { select: { status: true } } },
        })
      ).map(parseStudyJson),
    /** A page of the studies, newest first (createdAt, then id), after `cursor`. */
    page: async (args: PageArgs = {}) => {
      const limit = limitOf(args);
      const rows = await db.study.findMany({
        where: { AND: [{ workspaceId }, afterNewest(args.cursor)] },
        orderBy: NEWEST_FIRST,
        take: limit + 1,
        include: { runs: { select: { status: true } } },
      });
      return pageOf(rows.map(parseStudyJson), limit, newestKey);
    },
    /** Targets x workloads x repetitions in a planned order, with every run row, in one transaction (study-store.ts). */
    create: (input: StudyInput, opts: { requestedBy?: string | null } = {}) => createStudy(db, workspaceId, input, opts),
    assertExists: access.assertStudy,
    /** Cells, runs, spread across repetitions, merged results, progress and ETA (study-view.ts). */
    view: async (id: string, opts: { merged?: boolean } = {}) => {
      await access.assertStudy(id);
      return loadStudyView(db, id, opts);
    },
    /** The studies' tables (IoT Tables 5.x, study 001's success ratio, throughput definitions) over each cell's repetitions (study-tables.ts). */
    tables: async (id: string, opts: { requestName?: string | null } = {}) => {
      await access.assertStudy(id);
      return loadStudyTables(db, id, opts);
    },
    /** The primary metric's run-to-run CV over earlier runs of these targets x workloads (the study planner's). */
    earlierRunCv: (input: { targets: readonly string[]; workloads: readonly string[]; metric: string }) =>
      earlierRunCv(db, workspaceId, input),
    abort: (id: string) => {
      if (!isUuid(id)) throw new NotFoundError("study", id);
      return abortStudy(db, workspaceId, id);
    },
    /** Marks a study that never reached a worker as failed (e.g. the queue was down). */
    failBeforeStart: (id: string, error: string) =>
      db.$transaction([
        db.study.updateMany({ where: { id, workspaceId, status: "QUEUED" }, data: { status: "FAILED", error, finishedAt: new Date() } }),
        db.run.updateMany({
          where: { studyId: id, workspaceId, status: "QUEUED" },
          data: { status: "FAILED", error, finishedAt: new Date() },
        }),
      ]),
  };
}
