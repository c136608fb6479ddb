// Every kind's spec in words (defaults filled in), through its form (kind-forms.ts): the form's preview and the
// targets list.
import { isPlatformKind, kindFormOf } from "./kind-forms";

/** A kind's spec in words; null while the spec is not valid or for a kind without a form. */
export const describeKind = (kind: string, spec: unknown): string[] | null => kindFormOf(kind)?.describe(spec) ?? null;

/** A kind whose form has boxes of its own (it deploys to a platform or points at one), which the edit page can fill. */
export const isCloudKind = isPlatformKind;
