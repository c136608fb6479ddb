// A stored spec of a platform kind as its form (kind-forms.ts) edits it.
import { type SpecValues, uncoveredOf, valuesFromSpec } from "@/features/targets/target-form/spec-values";
import { platformFormOf } from "./kind-forms";

/**
 * A stored spec of a kind as the form edits it: its boxes, and what the boxes do not cover (env, database...; the
 * pricing boxes cover its cost model), sent back as it was so that saving the form changes only what it shows.
 */
export function editedSpec(kind: string, spec: unknown): { values: SpecValues; kept: Record<string, unknown> } {
  const form = platformFormOf(kind);
  return {
    values: form.values?.(spec) ?? valuesFromSpec(spec, form.fields),
    kept: uncoveredOf(spec, form.fields, [...(form.covered ?? []), "costModel"]),
  };
}
