// A run is aborted by request through its row (abort_requested_at, set by the API): the worker
// running it looks every second and, when it is set, ends the run's steps through its signal.
import type { RunStore } from "@opsbench/db";
import type { Logger } from "../logger";

export const ABORTED_BY_REQUEST = "aborted by request";

export interface AbortWatch {
  /** Fires on the given signal or on an abort by request. */
  signal: AbortSignal;
  requested: () => boolean;
  stop: () => void;
}

export function watchAbortRequest(store: RunStore, outer: AbortSignal, log: Logger, pollMs = 1000): AbortWatch {
  const byRequest = new AbortController();
  const timer = setInterval(() => {
    store.abortRequested().then(
      (yes) => {
        if (yes && !byRequest.signal.aborted) {
          log.info("run aborted by request");
          byRequest.abort(new Error(ABORTED_BY_REQUEST));
        }
      },
      (err) => log.warn({ err }, "could not check for an abort request"),
    );
  }, pollMs);
  return {
    signal: AbortSignal.any([outer, byRequest.signal]),
    requested: () => byRequest.signal.aborted,
    stop: () => clearInterval(timer),
  };
}
