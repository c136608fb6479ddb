// What the API takes and returns for a workspace's limits, the instance's ceilings and the audit log (the limits'
// and ceilings' own schemas are core's: workspace-limits.ts).
import { auditDetailSchema, instanceCeilingsSchema, workspaceLimitsSchema } from "@opsbench/core";
import { z } from "zod";
import { isoTime } from "./wire";

/** PUT /api/v1/limits: any of the limits; the others keep their value. */
export const limitsBody = workspaceLimitsSchema.partial();

/** PUT /api/v1/instance/ceilings: any of the ceilings; the others keep their value. */
export const ceilingsBody = instanceCeilingsSchema.partial();

export const auditQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).default(200) });

export const auditEventSchema = z.strictObject({
  id: z.string(),
  at: isoTime,
  actor: z.string(),
  action: z.string(),
  subjectKind: z.string(),
  subjectId: z.string(),
  detail: auditDetailSchema.nullable(),
});
