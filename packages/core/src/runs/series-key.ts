// A series (docs/trends.md): the runs a trend draws. A run given a series name (provenance.series) is in that named
// series, whatever its target; any other run with both a target and a workload is in their series. The key names
// the series in the trend page's address and the API: the name itself, or "<target>~<workload>"; "~" is in no name
// (the names' rule), so the two kinds never collide and a key reads back unambiguously.
import { z } from "zod";
import { resourceName } from "../names/resource-name";

export const SERIES_KEY_SEPARATOR = "~";

export type SeriesKey = { kind: "named"; name: string } | { kind: "target-workload"; target: string; workload: string };

export const seriesKeyText = (k: SeriesKey): string => (k.kind === "named" ? k.name : `${k.target}${SERIES_KEY_SEPARATOR}${k.workload}`);

/** A key as an address gives it, read back; anything else is refused naming the two forms. */
export const seriesKeySchema = z
  .string()
  .max(200)
  .transform((text, ctx): SeriesKey => {
    const parts = text.split(SERIES_KEY_SEPARATOR);
    if (parts.length === 1 && resourceName.safeParse(text).success) return { kind: "named", name: text };
    if (parts.length === 2 && resourceName.safeParse(parts[0]).success && resourceName.safeParse(parts[1]).success)
      return { kind: "target-workload", target: parts[0]!, workload: parts[1]! };
    ctx.addIssue({
      code: "custom",
      message: "a series key: a series name, or <target>~<workload> (each lower-case letters, digits, '.', '_' or '-')",
    });
    return z.NEVER;
  });

/** How a series is called on its page and in lists. */
export const seriesTitle = (k: SeriesKey): string => (k.kind === "named" ? k.name : `${k.target} × ${k.workload}`);

/** The series a run is in: its series name, else its target x workload; null for a run with neither (an unnamed import). */
export function seriesKeyOfRun(run: {
  series: string | null;
  target: { name: string } | null;
  workload: { name: string } | null;
}): SeriesKey | null {
  if (run.series) return { kind: "named", name: run.series };
  return run.target && run.workload ? { kind: "target-workload", target: run.target.name, workload: run.workload.name } : null;
}
