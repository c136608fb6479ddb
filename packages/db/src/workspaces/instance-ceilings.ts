// The instance admin's ceilings over every workspace's limits: one row, or DEFAULT_INSTANCE_CEILINGS of a new
// install until the admin sets one. Who may set them is the caller's to check (the admin-only API route and the
// settings page's action); effectiveLimits (packages/core) makes every workspace's limits the lower of the two.
import { DEFAULT_INSTANCE_CEILINGS, type InstanceCeilings } from "@opsbench/core";
import type { Db } from "../client";

const ROW = 1;

type CeilingsDb = Pick<Db, "instanceCeilings">;

export async function loadInstanceCeilings(db: CeilingsDb): Promise<InstanceCeilings> {
  const row = await db.instanceCeilings.findUnique({ where: { id: ROW } });
  if (!row) return { ...DEFAULT_INSTANCE_CEILINGS };
  const { id: _, updatedAt: __, ...ceilings } = row;
  return ceilings;
}

/** Sets some ceilings (the others keep their value); answers all of them. */
export async function setInstanceCeilings(db: CeilingsDb, changes: Partial<InstanceCeilings>): Promise<InstanceCeilings> {
  const next = { ...(await loadInstanceCeilings(db)), ...changes };
  await db.instanceCeilings.upsert({ where: { id: ROW }, create: { id: ROW, ...next }, update: next });
  return next;
}
