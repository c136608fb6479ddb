// The pages' side of a comparison URL: the query -> validated input -> data, with
// bad input or unknown runs as a message to show rather than an error page.
import { type ComparisonInput, comparisonInputSchema } from "@opsbench/api";
import type { WorkspaceScope } from "@opsbench/db";
import { z } from "zod";
import { fromZodError } from "@/lib/api/errors";
import type { CompareData } from "./compare-data";
import { loadCompareData } from "./load-compare-data";
import { runCvFromQuery, verdictChoicesFromQuery } from "./margin";
import { selectionFromQuery } from "./selection";
import { zoomFromQuery } from "./zoom";

export type QueryComparison =
  | { state: "empty" }
  | { state: "invalid"; message: string }
  | { state: "ok"; input: ComparisonInput; data: CompareData };

export async function comparisonFromQuery(
  scope: WorkspaceScope,
  query: Record<string, string | string[] | undefined>,
): Promise<QueryComparison> {
  const raw = selectionFromQuery(query);
  if (raw === null) return { state: "empty" };
  const parsed = comparisonInputSchema(raw).safeParse(raw);
  if (!parsed.success) return { state: "invalid", message: fromZodError(parsed.error).message };
  try {
    const { runToRunCv } = runCvFromQuery(query);
    const { options } = verdictChoicesFromQuery(query);
    // A zoom (?from=&to=) is the whole page's: verdicts, tables and the distribution are those of the window.
    const zoom = zoomFromQuery(query);
    return {
      state: "ok",
      input: parsed.data,
      data: await loadCompareData(scope, parsed.data, {
        ...(runToRunCv === undefined ? {} : { runToRunCv }),
        ...options,
        ...(zoom ? { window: zoom } : {}),
      }),
    };
  } catch (err) {
    if (err instanceof z.ZodError) return { state: "invalid", message: fromZodError(err).message };
    throw err;
  }
}
