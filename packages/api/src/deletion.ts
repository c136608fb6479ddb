// What the API answers when it deletes a run, a study, a target, a workload or a credential, and the retention setting.
import { z } from "zod";

export const runDeletedSchema = z.strictObject({ id: z.string(), deleted: z.literal(true), shareLinks: z.number().int() });
export const studyDeletedSchema = runDeletedSchema.extend({ runs: z.number().int() });
export const definitionDeletedSchema = z.strictObject({ id: z.string(), name: z.string(), deleted: z.literal(true) });
export const credentialDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });

/** Days a finished run keeps its raw per-second series; null keeps them forever. */
export const retentionSchema = z.strictObject({ seriesRetentionDays: z.number().int().min(1).max(3650).nullable() });
