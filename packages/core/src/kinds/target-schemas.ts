// The schemas every target kind's spec makes (kinds/): what the API takes and what a stored target holds.
import { z } from "zod";
import { type TARGET_KINDS, type TargetKind, targetKinds } from "./index";
import { targetName } from "../targets/local-specs";

export { type TargetKind, targetSpecs } from "./index";

type SpecOf<K extends TargetKind> = (typeof TARGET_KINDS)[K]["spec"];
/** A kind's spec, parsed (what its provider deploys). */
export type TargetSpecOf<K extends TargetKind> = z.output<SpecOf<K>>;
/** A target of one kind, as parsed or as given: its kind and that kind's spec. */
type DefinitionOf<K extends TargetKind, Parsed extends boolean> = {
  kind: K;
  spec: Parsed extends true ? z.output<SpecOf<K>> : z.input<SpecOf<K>>;
};
export type EveryKind<Parsed extends boolean, Extra> = { [K in TargetKind]: DefinitionOf<K, Parsed> & Extra }[TargetKind];

/**
 * `shape` with a kind and that kind's spec, one strict object per kind of the catalog, keyed by `kind`; built when
 * first parsed (kinds/index.ts: the catalog closes then), so every kind of the catalog is in it. Its type is the
 * built-in kinds' (TARGET_KINDS): the union is built from the run-time catalog, which the compiler does not see.
 */
export function schemaPerKind<Shape extends z.ZodRawShape>(
  shape: Shape,
): z.ZodType<EveryKind<true, z.output<z.ZodObject<Shape>>>, EveryKind<false, z.input<z.ZodObject<Shape>>>> {
  const union: z.ZodType = z.lazy(() => {
    const [first, ...rest] = targetKinds().map((k) => z.strictObject({ ...shape, kind: z.literal(k.kind), spec: k.spec }));
    return z.discriminatedUnion("kind", [first!, ...rest]);
  });
  return union as z.ZodType<EveryKind<true, z.output<z.ZodObject<Shape>>>, EveryKind<false, z.input<z.ZodObject<Shape>>>>;
}

/** A target as the API takes it (POST /api/v1/targets, a study's inline target). */
export type TargetInput = z.output<typeof targetInput>;
export const targetInput = schemaPerKind({ name: targetName });

/** A stored target's kind and spec (targets.kind + targets.spec): the spec must be that kind's. */
export type TargetDefinition = z.output<typeof targetDefinitionSchema>;
export const targetDefinitionSchema = schemaPerKind({});

/**
 * The target as a run copied it when it was made (runs.target_spec). Only the
 * envelope is read here: the worker checks the spec against its provider's
 * schema, so a bad spec fails that run with the reasons rather than every reader.
 */
export const targetSnapshotSchema = z.object({ kind: z.string().min(1), spec: z.unknown() });
export type TargetSnapshot = z.infer<typeof targetSnapshotSchema>;
