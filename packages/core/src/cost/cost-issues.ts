// Bad cost input is an expected failure, so parsing returns issues as values,
// each naming the field (e.g. "nodes[1].fromSecond") so a person can fix the file.
import type { z } from "zod";

export interface CostIssue {
  /** The field, as a path into the JSON: "nodes[1].fromSecond"; "" for the whole document. */
  path: string;
  message: string;
}

export type CostParse<T> = { ok: true; value: T } | { ok: false; issues: CostIssue[] };

export function pathText(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

export function issuesFromZod(error: z.ZodError): CostIssue[] {
  return error.issues.map((i) => {
    // Unknown keys are reported on their parent; name the key itself, which is what a reader looks for.
    if (i.code === "unrecognized_keys") {
      return {
        path: pathText([...i.path, i.keys[0]!]),
        message: i.keys.length > 1 ? `unknown fields ${i.keys.map((k) => `"${k}"`).join(", ")}` : "unknown field",
      };
    }
    return { path: pathText(i.path), message: i.message };
  });
}

/** "nodes[1].fromSecond: must be ...; unit: ..." */
export function formatCostIssues(issues: CostIssue[]): string {
  return issues.map((i) => `${i.path || "(top level)"}: ${i.message}`).join("; ");
}
