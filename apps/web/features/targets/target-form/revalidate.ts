// Field errors revalidated as the form changes: an error stays while its field holds what was refused, and once the
// field is changed it is judged again by the kind's schema (core kinds/), so a fixed field loses its error at once
// and a still wrong one shows the schema's new word. What only the server judges (the host policy, a credential) is
// dropped when its field changes and judged again at the next save.
import { kindDefinition } from "@opsbench/core";
import type { FormErrors } from "@/lib/api/form-errors";
import { NO_ERRORS } from "@/lib/api/form-errors";

/** What the form sent, or has now. */
export interface FormSnapshot {
  name: string;
  spec: unknown;
}

const valueAt = (o: unknown, path: string[]) =>
  path.reduce<unknown>((at, k) => (at && typeof at === "object" ? (at as Record<string, unknown>)[k] : undefined), o);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The kind schema's messages by dotted field path ("spec.autoscaler.targetCpuPercent") for a spec. */
function schemaIssues(kind: string, spec: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const r = kindDefinition(kind)?.spec.safeParse(spec);
  if (!r) return out;
  if (r.success) return out;
  for (const i of r.error.issues) {
    const path = ["spec", ...i.path.map(String)].join(".");
    out.set(path, [...(out.get(path) ?? []), i.message]);
  }
  return out;
}

/** The errors as they stand for the form's values now (the same object when nothing changed). */
export function revalidated(errors: FormErrors, sent: FormSnapshot, kind: string, now: FormSnapshot): FormErrors {
  const paths = Object.keys(errors.fields);
  if (paths.length === 0) return errors;
  let issues: Map<string, string[]> | null = null;
  const fields: Record<string, string[]> = {};
  let changed = false;
  for (const path of paths) {
    const [root, ...rest] = path.split(".");
    const moved =
      root === "name" ? now.name !== sent.name : root === "spec" ? !same(valueAt(now.spec, rest), valueAt(sent.spec, rest)) : false;
    if (!moved) {
      fields[path] = errors.fields[path]!;
      continue;
    }
    changed = true;
    issues ??= schemaIssues(kind, now.spec);
    const still = root === "spec" ? issues.get(path) : undefined;
    if (still?.length) fields[path] = still;
  }
  if (!changed) return errors;
  const left = Object.entries(fields);
  if (left.length === 0) return NO_ERRORS;
  return { message: left.map(([p, m]) => `${p}: ${m.join("; ")}`).join("; "), fields };
}
