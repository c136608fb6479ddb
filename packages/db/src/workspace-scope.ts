// Every row belongs to a workspace. This file is the one place that scopes reads
// and writes to a workspace: callers get a scope and never pass workspaceId
// into a query themselves. Teams arrive later; until then there is "default".
import type { StudyInput, TargetInput, WorkloadInput } from "@opsbench/core";
import type { Db } from "./client";
import type { Prisma } from "./generated/prisma/client";
import { loadComparison, type ComparisonGroupInput } from "./comparison";
import { priceCatalogStore } from "./price-catalogs";
import { loadRunView, loadWindowSummary } from "./run-view";
import { createShareLink, type ShareKind, type ShareSubject } from "./share-links";
import { abortStudy, createStudy } from "./study-store";
import { loadStudyView } from "./study-view";

export const DEFAULT_WORKSPACE_SLUG = "default";

export async function defaultWorkspaceId(db: Db): Promise<string> {
  const ws = await db.workspace.upsert({
    where: { slug: DEFAULT_WORKSPACE_SLUG },
    create: { slug: DEFAULT_WORKSPACE_SLUG, name: "Default workspace" },
    update: {},
  });
  return ws.id;
}

export class NotFoundError extends Error {
  constructor(
    readonly entity: "target" | "workload" | "run" | "study" | "share",
    readonly key: string,
  ) {
    super(`${entity} "${key}" not found`);
  }
}

export function workspaceScope(db: Db, workspaceId: string) {
  /** Throws NotFoundError unless the run exists in this workspace. */
  const assertRunInWorkspace = async (id: string) => {
    const run = isUuid(id) ? await db.run.findFirst({ where: { id, workspaceId }, select: { id: true } }) : null;
    if (!run) throw new NotFoundError("run", id);
  };
  const assertRunsInWorkspace = async (ids: string[]) => {
    const bad = ids.find((id) => !isUuid(id));
    if (bad !== undefined) throw new NotFoundError("run", bad);
    const found = await db.run.findMany({ where: { id: { in: ids }, workspaceId }, select: { id: true } });
    const missing = ids.find((id) => !found.some((f) => f.id === id));
    if (missing) throw new NotFoundError("run", missing);
  };
  return {
    workspaceId,
    /** Price catalogs: versioned cost models, built-ins seeded from packages/core (price-catalogs.ts). */
    priceCatalogs: priceCatalogStore(db, workspaceId),
    targets: {
      list: () => db.target.findMany({ where: { workspaceId }, orderBy: { name: "asc" } }),
      byName: async (name: string) => {
        const t = await db.target.findUnique({ where: { workspaceId_name: { workspaceId, name } } });
        if (!t) throw new NotFoundError("target", name);
        return t;
      },
      /** Creates the target, or replaces the spec of the one with that name. */
      put: (input: TargetInput) =>
        db.target.upsert({
          where: { workspaceId_name: { workspaceId, name: input.name } },
          create: { workspaceId, name: input.name, kind: input.kind, spec: input.spec as Prisma.InputJsonValue },
          update: { kind: input.kind, spec: input.spec as Prisma.InputJsonValue },
        }),
    },
    workloads: {
      list: () => db.workload.findMany({ where: { workspaceId }, orderBy: { name: "asc" } }),
      byName: async (name: string) => {
        const w = await db.workload.findUnique({ where: { workspaceId_name: { workspaceId, name } } });
        if (!w) throw new NotFoundError("workload", name);
        return w;
      },
      put: (input: WorkloadInput) =>
        db.workload.upsert({
          where: { workspaceId_name: { workspaceId, name: input.name } },
          create: { workspaceId, name: input.name, kind: input.spec.kind, spec: input.spec as Prisma.InputJsonValue },
          update: { kind: input.spec.kind, spec: input.spec as Prisma.InputJsonValue },
        }),
    },
    studies: {
      /** A study of one target x one workload x `repetitions` runs, created in one transaction. */
      createSingleCell: (args: { name: string; targetId: string; workloadId: string; repetitions?: number }) =>
        db.$transaction(async (tx) => {
          const [target, workload] = await Promise.all([
            tx.target.findFirstOrThrow({ where: { id: args.targetId, workspaceId } }),
            tx.workload.findFirstOrThrow({ where: { id: args.workloadId, workspaceId } }),
          ]);
          const repetitions = args.repetitions ?? 1;
          const study = await tx.study.create({ data: { workspaceId, name: args.name, repetitions } });
          const runs = [];
          for (let repetition = 1; repetition <= repetitions; repetition++) {
            runs.push(
              await tx.run.create({
                data: {
                  workspaceId,
                  studyId: study.id,
                  targetId: target.id,
                  workloadId: workload.id,
                  repetition,
                  targetSpec: { kind: target.kind, spec: target.spec } as Prisma.InputJsonValue,
                  workloadSpec: workload.spec as Prisma.InputJsonValue,
                },
              }),
            );
          }
          return { study, runs };
        }),
      get: async (id: string) => {
        const s = await db.study.findFirst({ where: { id, workspaceId }, include: { runs: { orderBy: { repetition: "asc" } } } });
        if (!s) throw new NotFoundError("study", id);
        return s;
      },
      /** The workspace's studies, newest first, with their runs' statuses (the studies list page). */
      list: (take = 50) =>
        db.study.findMany({
          where: { workspaceId },
          orderBy: { createdAt: "desc" },
          take,
          include: { runs: { select: { status: true } } },
        }),
      /** Targets x workloads x repetitions in a planned order, with every run row, in one transaction (study-store.ts). */
      create: (input: StudyInput) => createStudy(db, workspaceId, input),
      assertExists: async (id: string) => {
        const s = isUuid(id) ? await db.study.findFirst({ where: { id, workspaceId }, select: { id: true } }) : null;
        if (!s) throw new NotFoundError("study", id);
      },
      /** Cells, runs, spread across repetitions, merged results, progress and ETA (study-view.ts). */
      view: async (id: string, opts: { merged?: boolean } = {}) => {
        const s = isUuid(id) ? await db.study.findFirst({ where: { id, workspaceId }, select: { id: true } }) : null;
        if (!s) throw new NotFoundError("study", id);
        return loadStudyView(db, id, opts);
      },
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
    },
    runs: {
      create: async (args: { targetName: string; workloadName: string }) => {
        const target = await db.target.findUnique({ where: { workspaceId_name: { workspaceId, name: args.targetName } } });
        if (!target) throw new NotFoundError("target", args.targetName);
        const workload = await db.workload.findUnique({ where: { workspaceId_name: { workspaceId, name: args.workloadName } } });
        if (!workload) throw new NotFoundError("workload", args.workloadName);
        return db.run.create({
          data: {
            workspaceId,
            targetId: target.id,
            workloadId: workload.id,
            targetSpec: { kind: target.kind, spec: target.spec } as Prisma.InputJsonValue,
            workloadSpec: workload.spec as Prisma.InputJsonValue,
          },
        });
      },
      list: (take = 50) =>
        db.run.findMany({
          where: { workspaceId },
          orderBy: { createdAt: "desc" },
          take,
          include: { target: { select: { name: true, kind: true } }, workload: { select: { name: true } } },
        }),
      assertExists: assertRunInWorkspace,
      view: async (id: string) => {
        await assertRunInWorkspace(id);
        return loadRunView(db, id);
      },
      /** Summary of seconds [from, to) after the load started. */
      windowSummary: async (id: string, fromSeconds: number, toSeconds: number) => {
        await assertRunInWorkspace(id);
        return loadWindowSummary(db, id, fromSeconds, toSeconds);
      },
      /** Marks a run that never reached a worker as failed (e.g. the queue was down). */
      failBeforeStart: (id: string, error: string) =>
        db.run.updateMany({ where: { id, workspaceId, status: "QUEUED" }, data: { status: "FAILED", error, finishedAt: new Date() } }),
    },
    /** Runs or study cells side by side (each group: the runs of one cell, or one run). */
    compare: async (groups: ComparisonGroupInput[]) => {
      await assertRunsInWorkspace(groups.flatMap((g) => g.runIds));
      return loadComparison(db, groups);
    },
    shares: {
      /** Creates a link; everything it names must belong to this workspace. */
      create: async (input: { kind: ShareKind; subject: ShareSubject; title?: string }) => {
        const ids = [...(input.subject.runIds ?? []), ...(input.subject.groups ?? []).flatMap((g) => g.runIds)];
        await assertRunsInWorkspace(ids);
        if (
          input.subject.studyId &&
          !(await db.study.findFirst({ where: { id: input.subject.studyId, workspaceId }, select: { id: true } }))
        ) {
          throw new NotFoundError("study", input.subject.studyId);
        }
        return createShareLink(db, workspaceId, input);
      },
      list: () =>
        db.shareLink.findMany({
          where: { workspaceId },
          orderBy: { createdAt: "desc" },
          select: { id: true, kind: true, title: true, subject: true, createdAt: true, revokedAt: true },
        }),
      revoke: async (id: string) => {
        const r = isUuid(id)
          ? await db.shareLink.updateMany({ where: { id, workspaceId, revokedAt: null }, data: { revokedAt: new Date() } })
          : { count: 0 };
        if (r.count === 0) throw new NotFoundError("share", id);
      },
    },
  };
}
export type WorkspaceScope = ReturnType<typeof workspaceScope>;

export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
