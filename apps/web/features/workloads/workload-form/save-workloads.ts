// Saving what the workload form built: checked here first (the server checks again), then one POST per
// workload; the first refusal stops the rest and says which were saved before it.
import { type FormErrors, plainIssueMessage, readFormErrors } from "@/lib/api/form-errors";
import type { BuiltWorkloads } from "./built-workloads";

const NAME_RE = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * A problem to show before sending anything, or null. The form asks again on every change once a save was tried,
 * so a message beside a field goes when the field is fixed.
 */
export function checkBeforeSaving(built: BuiltWorkloads, name: string): FormErrors | null {
  const fields = Object.fromEntries(Object.entries(built.fieldProblems).map(([p, msgs]) => [p, msgs.map(plainIssueMessage)]));
  if (built.problems.length > 0) return { message: `fix these first: ${built.problems.map(plainIssueMessage).join("; ")}`, fields };
  if (!name.trim()) return { message: "name: give the workload a name", fields: { ...fields, name: ["give the workload a name"] } };
  const badName = built.workloads.find((w) => !NAME_RE.test(w.name));
  if (badName) {
    const msg = "use lower-case letters, digits, '.', '_' or '-'";
    return { message: `name: "${badName.name}": ${msg}`, fields: { ...fields, name: [msg] } };
  }
  const first = Object.entries(fields)[0];
  return first ? { message: `${first[0]}: ${first[1].join("; ")}`, fields } : null;
}

/** POSTs each workload in turn; `errors` is null when all were saved. */
export async function saveWorkloads(workloads: BuiltWorkloads["workloads"]): Promise<{ saved: string[]; errors: FormErrors | null }> {
  const saved: string[] = [];
  try {
    for (const w of workloads) {
      const res = await fetch("/api/v1/workloads", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(w),
      });
      if (!res.ok) {
        const errs = await readFormErrors(res);
        const errors =
          workloads.length > 1
            ? { ...errs, message: `${w.name}: ${errs.message}${saved.length ? ` (saved before it: ${saved.join(", ")})` : ""}` }
            : errs;
        return { saved, errors };
      }
      saved.push(w.name);
    }
    return { saved, errors: null };
  } catch (err) {
    return { saved, errors: { message: (err as Error).message, fields: {} } };
  }
}
