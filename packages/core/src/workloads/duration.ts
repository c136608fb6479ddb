import { z } from "zod";

/** k6 duration strings such as "30s", "1m30s", "500ms". */
export const k6Duration = z.string().regex(/^(\d+(\.\d+)?(ms|s|m|h))+$/, 'a duration like "30s", "2m" or "1m30s"');

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

export function durationSeconds(d: string): number {
  let total = 0;
  for (const m of d.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * UNIT_SECONDS[m[2]!]!;
  return total;
}

/**
 * Seconds as a k6 duration in whole milliseconds, in the largest units that
 * divide it exactly: 1800 -> "30m", 90 -> "1m30s", 1.2 -> "1s200ms", 0 -> "0s".
 */
export function formatDuration(seconds: number): string {
  let ms = Math.round(seconds * 1000);
  if (ms <= 0) return "0s";
  let out = "";
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
    ["ms", 1],
  ] as const) {
    const n = Math.floor(ms / size);
    if (n > 0) out += `${n}${unit}`;
    ms -= n * size;
  }
  return out;
}

/** A duration multiplied by a time-scale factor (0.1 makes "30m" "3m"). */
export const scaleDuration = (d: string, factor: number): string => formatDuration(durationSeconds(d) * factor);
