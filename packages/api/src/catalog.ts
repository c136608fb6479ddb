// What the API returns for targets, workloads and workload presets, and a target's proof of ownership.
import { type LoadPoint, schemaPerKind, workloadSpec } from "@opsbench/core";
import { z } from "zod";
import type { SameShape } from "./same-type";
import { id, isoTime } from "./wire";

const storedItem = { id, name: z.string(), createdAt: isoTime, updatedAt: isoTime };

/** A stored target: its kind and that kind's spec, one entry per kind of the catalog (as targetDefinitionSchema in core). */
export const targetItemSchema = schemaPerKind(storedItem);

/** POST /api/v1/workloads and the list: a stored workload. */
export const workloadItemSchema = z.strictObject({ ...storedItem, kind: z.string(), spec: workloadSpec });

export const loadPointSchema = z.strictObject({
  t: z.number(),
  vus: z.number().optional(),
  rate: z.number().optional(),
  percentOfMax: z.number().optional(),
});
true satisfies SameShape<z.output<typeof loadPointSchema>, LoadPoint>;

/** GET /api/v1/workloads/presets: each preset, its parameters as JSON Schema, and the workloads it builds, charted. */
export const workloadPresetSchema = z.strictObject({
  name: z.string(),
  study: z.string(),
  description: z.string(),
  requires: z.array(z.string()),
  parameters: z.record(z.string(), z.unknown()),
  workloads: z.array(
    z.strictObject({
      name: z.string(),
      repetitions: z.number().int().optional(),
      spec: workloadSpec,
      plannedSeconds: z.number(),
      loadProfile: z.array(loadPointSchema),
    }),
  ),
});

export const presetsQuery = z.object({ timeScale: z.coerce.number().gt(0).max(100).default(1) }).strict();

/** GET /api/v1/targets/{id}/verification: the token that proves the workspace owns the target's host. */
export const targetVerificationSchema = z.strictObject({
  target: z.strictObject({ id, name: z.string(), kind: z.string() }),
  host: z.string().nullable(),
  token: z.string().nullable(),
  wellKnownUrl: z.string().nullable(),
  dnsTxt: z.strictObject({ name: z.string(), value: z.string() }).nullable(),
});
