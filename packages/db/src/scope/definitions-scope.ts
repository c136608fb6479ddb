import type { TargetInput, WorkloadInput } from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { targetColumns, workloadColumns } from "../spec-columns";

/** A workspace's targets and workloads (what runs are made of). */
export function definitionsScope(db: Db, workspaceId: string) {
  return { targets: targetsScope(db, workspaceId), workloads: workloadsScope(db, workspaceId) };
}

function targetsScope(db: Db, workspaceId: string) {
  return {
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
        create: { workspaceId, name: input.name, ...targetColumns(input) },
        update: targetColumns(input),
      }),
  };
}

function workloadsScope(db: Db, workspaceId: string) {
  return {
    list: () => db.workload.findMany({ where: { workspaceId }, orderBy: { name: "asc" } }),
    byName: async (name: string) => {
      const w = await db.workload.findUnique({ where: { workspaceId_name: { workspaceId, name } } });
      if (!w) throw new NotFoundError("workload", name);
      return w;
    },
    put: (input: WorkloadInput) =>
      db.workload.upsert({
        where: { workspaceId_name: { workspaceId, name: input.name } },
        create: { workspaceId, name: input.name, ...workloadColumns(input.spec) },
        update: workloadColumns(input.spec),
      }),
  };
}
