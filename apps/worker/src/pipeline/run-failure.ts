import { ProviderError } from "@opsbench/providers";
import { ZodError } from "zod";

/** An expected failure: its message is shown to the user as the run's error. */
export class RunFailure extends Error {}

/** Failures the user can act on (bad input, a target that would not come up), as opposed to bugs. */
export const isExpectedFailure = (err: unknown) => err instanceof RunFailure || err instanceof ProviderError || err instanceof ZodError;

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Runs a zod parse; its issues become a RunFailure naming `what` was invalid. `within`: the field `what` is, when the
 * parse is of what holds it (the target's `spec` in its definition), so the issues name paths inside `what`.
 */
export function parseOrFail<T>(fn: () => T, what: string, within?: string): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ZodError) {
      const pathIn = (path: PropertyKey[]) => (within !== undefined && path[0] === within ? path.slice(1) : path);
      const issues = err.issues.map((i) => `${pathIn(i.path).map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
      throw new RunFailure(`invalid ${what}: ${issues}`);
    }
    throw err;
  }
}
