// Waiting on a cluster: until a check says ready, the deadline passes, or the run is aborted.
import { ProviderError } from "../provider";
import { sleep } from "./sleep";

/** Waits until `ready()` says yes, checking every second; throws with `waiting` in the message at the deadline. */
export async function waitFor(ready: () => Promise<string | null>, timeoutMs: number, waiting: string, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const notYet = await ready();
    if (notYet === null) return;
    if (signal.aborted) throw new ProviderError(`aborted while waiting for ${waiting}`);
    if (Date.now() > deadline) throw new ProviderError(`${waiting} did not happen within ${Math.round(timeoutMs / 1000)} s: ${notYet}`);
    await sleep(1000, signal);
  }
}
