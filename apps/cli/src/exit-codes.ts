// The CLI's exit statuses (docs/ci.md lists them for CI): one number per kind of outcome, so a pipeline can tell a
// regression (99) from bad input (2), a server it could not reach (69) or a job that was cancelled (130/143).
// No database module: the packed CLI holds this.

export const EXIT = {
  ok: 0,
  /** The run failed or was aborted, the server refused the token, anything else that went wrong. */
  failed: 1,
  /** Bad input: arguments, unknown names, input the server refused. */
  usage: 2,
  /**
   * The server could not be reached: no connection, no answer within the request timeout, or a proxy's 502/503/504,
   * after the retries (sysexits.h's EX_UNAVAILABLE, "a service is unavailable").
   */
  unreachable: 69,
  /** The run succeeded but a k6 threshold or a --fail-on rule failed. */
  thresholds: 99,
  /** Stopped by SIGINT (Ctrl-C) or SIGTERM (a CI job cancelled), 128 + the signal's number as a shell reports it. */
  SIGINT: 130,
  SIGTERM: 143,
} as const;

/** The server could not be reached within the retry budget: exit 69. The message names the URL. */
export class ServerUnreachable extends Error {}

/** The command was stopped by a signal (after aborting what it had started on the server): exit 130 or 143. */
export class Interrupted extends Error {
  constructor(
    message: string,
    readonly signal: "SIGINT" | "SIGTERM",
  ) {
    super(message);
  }
  get code(): number {
    return EXIT[this.signal];
  }
}
