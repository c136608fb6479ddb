import { setTimeout as wait } from "node:timers/promises";

/** Waits `ms`, or less when the signal aborts (never throws). */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);
