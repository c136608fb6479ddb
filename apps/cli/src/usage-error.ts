import { EXIT, Interrupted, ServerUnreachable } from "./exit-codes";

/** The caller's mistake (bad arguments, unknown names, input the server refused): exit 2 with the usage. */
export class UsageError extends Error {}

/** Runs parseArgs (or any parser), turning its complaints into usage errors. */
export function parsing<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * Ends the process with the command's exit code: 2 and the usage for a usage error, 69 when the server could not be
 * reached, 130/143 when a signal stopped it (what it started on the server already aborted), 1 for any other failure.
 */
export function exitWith(run: Promise<number>, usage: string, say: (m: string) => void): void {
  run.then(
    (code) => process.exit(code),
    (err) => {
      if (err instanceof UsageError) {
        say(`opsbench: ${err.message}\n${usage}`);
        process.exit(EXIT.usage);
      }
      say(`opsbench: ${err instanceof Error ? err.message : String(err)}`);
      if (err instanceof ServerUnreachable) process.exit(EXIT.unreachable);
      if (err instanceof Interrupted) process.exit(err.code);
      process.exit(EXIT.failed);
    },
  );
}
