// A user's own k6 script is checked by a worker (k6 inspect) before it is saved: the web app never spawns k6.
import { ScriptValidationUnavailable, type ScriptValidationResult } from "@opsbench/jobs";
import { ApiError } from "@/lib/api/errors";
import { getScriptValidator } from "./singletons";

/** Throws a 422 at spec.source with k6's message when the script does not parse; a 500 when no worker could check it. */
export async function assertScriptParses(source: string): Promise<void> {
  let result: ScriptValidationResult;
  try {
    result = await getScriptValidator().validateScript(source);
  } catch (err) {
    if (err instanceof ScriptValidationUnavailable) throw new ApiError("internal", `the script could not be checked: ${err.message}`);
    throw err;
  }
  if (!result.ok) throw new ApiError("invalid_input", `spec.source: ${result.message}`, [{ path: "spec.source", message: result.message }]);
}
