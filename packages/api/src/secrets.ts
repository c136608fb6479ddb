// /api/v1/secrets (issue 37): a workspace's script secrets, given to a run's script as __ENV.NAME when the run
// names them (`opsbench run --secret NAME`). A value goes in once and is never answered back, to anyone.
import { scriptSecretName, scriptSecretValue, targetName } from "@opsbench/core";
import { z } from "zod";
import { isoTime } from "./wire";

/** POST /api/v1/secrets: saves a value (or replaces the one of that name). */
export const scriptSecretInput = z.strictObject({ name: scriptSecretName, value: scriptSecretValue });

/** A secret as listed: its name and dates, never its value. */
export const scriptSecretItemSchema = z.strictObject({ id: z.string(), name: z.string(), createdAt: isoTime, updatedAt: isoTime });

export const scriptSecretSavedSchema = scriptSecretItemSchema.extend({ replaced: z.boolean() });
export const scriptSecretDeletedSchema = z.strictObject({ id: z.string(), name: z.string(), deleted: z.literal(true) });

/** PUT /api/v1/workloads/{id}: a new name (the names' rule, targetName, is every resource name's) (runs, baselines and the series follow the workload: they hang off its id). */
export const workloadRenameInput = z.strictObject({ name: targetName });
export const workloadRenamedSchema = z.strictObject({ id: z.string(), from: z.string(), name: z.string() });
