// What a form shows for a refused request: the API's message, and each issue
// next to the field it names (by dotted path, e.g. "spec.autoscaler.targetCpuPercent").
import type { ApiErrorBody } from "./errors";

export interface FormErrors {
  message: string;
  /** Dotted path -> messages for that field. */
  fields: Record<string, string[]>;
}

export const NO_ERRORS: FormErrors = { message: "", fields: {} };

/** zod's "Invalid input: expected number, received undefined" next to an empty box says: fill this in. */
export const plainIssueMessage = (m: string) => (/received undefined$/.test(m) ? "required" : m);

export async function readFormErrors(res: Response): Promise<FormErrors> {
  let body: Partial<ApiErrorBody> | null = null;
  try {
    body = (await res.json()) as Partial<ApiErrorBody>;
  } catch {
    /* not JSON: fall back to the status */
  }
  const fields: Record<string, string[]> = {};
  for (const i of body?.error?.issues ?? []) {
    fields[i.path] ??= [];
    fields[i.path]!.push(plainIssueMessage(i.message));
  }
  const issues = body?.error?.issues ?? [];
  const message = issues.length
    ? issues.map((i) => (i.path ? `${i.path}: ${plainIssueMessage(i.message)}` : plainIssueMessage(i.message))).join("; ")
    : body?.error?.message;
  return { message: message ?? `the server answered HTTP ${res.status}`, fields };
}

/** Messages for a field and anything under it ("spec.stages" also takes "spec.stages.0.duration"). */
export function errorsAt(errors: FormErrors, path: string, opts: { nested?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const [p, msgs] of Object.entries(errors.fields)) {
    if (p === path) out.push(...msgs);
    else if (opts.nested && p.startsWith(`${path}.`)) out.push(...msgs.map((m) => `${p.slice(path.length + 1)}: ${m}`));
  }
  return out;
}

/** The errors without those of one field (it was edited since); none left: no banner either. */
export function withoutField(errors: FormErrors, path: string): FormErrors {
  if (!(path in errors.fields)) return errors;
  const { [path]: _, ...fields } = errors.fields;
  return Object.keys(fields).length ? { ...errors, fields } : NO_ERRORS;
}
