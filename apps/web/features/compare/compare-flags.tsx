import { fmtDropShare, LOAD_GENERATOR_CPU_LIMIT, type ValidityFlag } from "@opsbench/core";

const LABELS: Record<string, string> = {
  "dropped-iterations": "dropped iterations",
  "load-generator-cpu": `load generator CPU > ${LOAD_GENERATOR_CPU_LIMIT}%`,
  "baseline-not-reached": "baseline not reached",
  "too-few-repetitions": "too few repetitions",
};

/** A flag's short label; dropped iterations with their share when known ("dropped iterations 0.50%"). */
const labelOf = (f: ValidityFlag) =>
  f.code === "dropped-iterations" && f.share !== undefined
    ? `dropped iterations ${fmtDropShare(f.share)}`
    : (LABELS[f.code] ?? f.code.replace(/-/g, " "));

/** Validity flags as small badges; the message is the tooltip. Renders nothing when there are none. */
export function FlagBadges({ flags, testId }: { flags: ValidityFlag[]; testId?: string }) {
  if (flags.length === 0) return null;
  return (
    <span data-testid={testId} className="inline-flex flex-wrap gap-1">
      {flags.map((f) => (
        <span
          key={f.code}
          data-testid={`flag-${f.code}`}
          data-flag={f.code}
          title={f.message}
          className="inline-flex items-center gap-1 whitespace-nowrap rounded bg-amber-50 px-1 py-px text-2xs font-medium text-amber-800 ring-1 ring-inset ring-amber-300"
        >
          <span aria-hidden>⚠</span>
          {labelOf(f)}
        </span>
      ))}
    </span>
  );
}

/** Flags with their messages written out (for a run's header or a report). */
export function FlagList({ flags, testId }: { flags: ValidityFlag[]; testId?: string }) {
  if (flags.length === 0) return null;
  return (
    <ul data-testid={testId} className="space-y-0.5 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-2xs text-amber-900">
      {flags.map((f) => (
        <li key={f.code} data-flag={f.code}>
          <span className="font-medium">⚠ {labelOf(f)}</span>: {f.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * A group's validity said once (issue 35): each flag of the group or of any of its runs, with the runs it is on
 * ("#1, #3"), instead of a chip on every row. Renders nothing when no flag is raised.
 */
export function GroupValidityBanner({
  groupFlags,
  runs,
  testId,
}: {
  groupFlags: ValidityFlag[];
  runs: ReadonlyArray<{ number: number; flags: ValidityFlag[] }>;
  testId?: string;
}) {
  const byCode = new Map<string, { flag: ValidityFlag; runs: string[] }>();
  for (const f of groupFlags) byCode.set(f.code, { flag: f, runs: [] });
  for (const r of runs)
    for (const f of r.flags) {
      const entry = byCode.get(f.code) ?? { flag: f, runs: [] };
      entry.runs.push(`#${r.number}${f.code === "dropped-iterations" && f.share !== undefined ? ` ${fmtDropShare(f.share)}` : ""}`);
      byCode.set(f.code, entry);
    }
  if (byCode.size === 0) return null;
  return (
    <span data-testid={testId} className="flex flex-wrap gap-x-3 gap-y-0.5 text-2xs text-amber-900">
      {[...byCode.values()].map(({ flag, runs: on }) => (
        <span key={flag.code} data-testid={`flag-${flag.code}`} data-flag={flag.code} title={flag.message}>
          <span aria-hidden>⚠ </span>
          <span className="font-medium">{on.length > 0 && flag.code === "dropped-iterations" ? "dropped iterations" : labelOf(flag)}</span>
          {on.length > 0 ? ` in run${on.length === 1 ? "" : "s"} ${on.join(", ")}` : ""}
        </span>
      ))}
    </span>
  );
}
