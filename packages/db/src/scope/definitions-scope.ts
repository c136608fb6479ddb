import { pageOf, restoreTargetSecrets, type TargetInput, type WorkloadInput } from "@opsbench/core";
import { afterName, limitOf, type PageArgs } from "./page-where";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { targetColumns, workloadColumns } from "../spec-columns";
import { isUuid } from "./workspace-access";

/** The client or a transaction: createStudy resolves a study's targets and workloads in its own. */
type DefinitionsDb = Pick<Db, "target" | "workload">;

/** A workspace's targets and workloads (what runs are made of). */
export function definitionsScope(db: DefinitionsDb, workspaceId: string) {
  return { targets: targetsScope(db, workspaceId), workloads: workloadsScope(db, workspaceId) };
}

const nameKey = (workspaceId: string, name: string) => ({ workspaceId_name: { workspaceId, name } });

function found<T>(row: T | null, entity: "target" | "workload", name: string): T {
  if (!row) throw new NotFoundError(entity, name);
  return row;
}

function targetsScope(db: DefinitionsDb, workspaceId: string) {
  return {
    list: () => db.target.findMany({ where: { workspaceId }, orderBy: { name: "asc" } }),
    /**
     * A page of them by name, after `cursor`: a name is unique in a workspace, so the order is total and the list keeps
     * the order it always had (an API client reading the first page sees what it saw before pages).
     */
    page: async (args: PageArgs = {}) => {
      const limit = limitOf(args);
      const rows = await db.target.findMany({
        where: { workspaceId, ...afterName(args.cursor) },
        orderBy: { name: "asc" },
        take: limit + 1,
      });
      return pageOf(rows, limit, (r) => ({ key: r.name }));
    },
    byName: async (name: string) => found(await db.target.findUnique({ where: nameKey(workspaceId, name) }), "target", name),
    /**
     * Creates the target, or replaces the spec of the one with that name. Env values
     * are write-only: one sent back as the redacted placeholder keeps the stored value.
     */
    put: async (input: TargetInput) => {
      const stored = await db.target.findUnique({ where: nameKey(workspaceId, input.name), select: { spec: true } });
      const columns = targetColumns({ ...input, spec: restoreTargetSecrets(input.spec, stored?.spec) });
      return db.target.upsert({
        where: nameKey(workspaceId, input.name),
        create: { workspaceId, name: input.name, ...columns },
        update: columns,
      });
    },
  };
}

function workloadsScope(db: DefinitionsDb, workspaceId: string) {
  return {
    list: () => db.workload.findMany({ where: { workspaceId }, orderBy: { name: "asc" } }),
    /**
     * A page of them by name, after `cursor`: a name is unique in a workspace, so the order is total and the list keeps
     * the order it always had (an API client reading the first page sees what it saw before pages).
     */
    page: async (args: PageArgs = {}) => {
      const limit = limitOf(args);
      const rows = await db.workload.findMany({
        where: { workspaceId, ...afterName(args.cursor) },
        orderBy: { name: "asc" },
        take: limit + 1,
      });
      return pageOf(rows, limit, (r) => ({ key: r.name }));
    },
    byName: async (name: string) => found(await db.workload.findUnique({ where: nameKey(workspaceId, name) }), "workload", name),
    /** Creates the workload, or replaces the spec of the one with that name. */
    put: (input: WorkloadInput) => {
      const columns = workloadColumns(input.spec);
      return db.workload.upsert({
        where: nameKey(workspaceId, input.name),
        create: { workspaceId, name: input.name, ...columns },
        update: columns,
      });
    },
    /**
     * Renames a workload (by id or name). Its runs, baselines and baseline history hang off its id, and a series of
     * target x workload is keyed by the workload's current name, so all of them follow it. ConflictError when the
     * new name is taken; NotFoundError for one this workspace does not have.
     */
    rename: async (idOrName: string, to: string) => {
      const row = await db.workload.findFirst({
        where: { workspaceId, ...(isUuid(idOrName) ? { id: idOrName } : { name: idOrName }) },
        select: { id: true, name: true },
      });
      if (!row) throw new NotFoundError("workload", idOrName);
      if (row.name === to) return { id: row.id, from: row.name, name: to };
      if (await db.workload.findUnique({ where: nameKey(workspaceId, to), select: { id: true } }))
        throw new ConflictError(`a workload named "${to}" already exists`);
      await db.workload.update({ where: { id: row.id }, data: { name: to } });
      return { id: row.id, from: row.name, name: to };
    },
  };
}
