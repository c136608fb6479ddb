// Every kind's spec in words (defaults filled in), through its form (kind-forms.ts): the form's preview and the
// targets list.
import { kindFormOf } from "./kind-forms";

/** A kind's spec in words; null while the spec is not valid or for a kind without a form. */
export const describeKind = (kind: string, spec: unknown): string[] | null => kindFormOf(kind)?.describe(spec) ?? null;
