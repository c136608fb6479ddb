"use client";

// Which runs the verdicts left out for their validity flags (partial, dropped iterations, a saturated load
// generator, ...), said above the verdicts, with a link that judges them too (?includeFlagged=1) and back;
// and the runs judged although they dropped iterations, within the stated tolerance, with their drop share.
import { DROPPED_ITERATIONS_TOLERANCE_TEXT, dropsOverTolerance, flagsOfRun, fmtDropShare } from "@opsbench/core";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import type { CompareData } from "@/features/compare/compare-data";
import { INCLUDE_FLAGGED_PARAM } from "@/features/compare/selection";

export function CompareVerdictExclusions({ data, linkable }: { data: CompareData; linkable: boolean }) {
  const { includeFlagged, excluded } = data.verdictExclusions;
  const path = usePathname();
  const params = useSearchParams();
  const toggled = new URLSearchParams(params?.toString() ?? "");
  if (includeFlagged) toggled.delete(INCLUDE_FLAGGED_PARAM);
  else toggled.set(INCLUDE_FLAGGED_PARAM, "1");
  const flaggedRuns = data.groups.flatMap((g) => g.runs).filter((r) => r.flags.length > 0).length;
  // Judged with drops: the flag is shown, and the share said, but the run counts (DROPPED_ITERATIONS_TOLERANCE).
  const tolerated = includeFlagged
    ? []
    : data.groups.flatMap((g) =>
        g.runs.flatMap((r) => {
          const share = flagsOfRun(r).find((f) => f.code === "dropped-iterations")?.share;
          return share !== undefined && !dropsOverTolerance(share) ? [{ group: g.label, runId: r.id, share }] : [];
        }),
      );
  const toleratedNote = tolerated.length > 0 && (
    <span data-testid="cmp-tolerated-drops">
      {" "}
      Judged although they dropped iterations (within the {DROPPED_ITERATIONS_TOLERANCE_TEXT} tolerance):{" "}
      {tolerated.map((t, i) => (
        <span key={t.runId} data-testid="cmp-tolerated-run" data-run-id={t.runId} data-drop-share={t.share}>
          {i > 0 ? "; " : ""}
          <span className="font-mono">{t.runId.slice(0, 8)}</span> of {t.group} ({fmtDropShare(t.share)} dropped)
        </span>
      ))}
      .
    </span>
  );
  if (!includeFlagged && excluded.length === 0)
    return toleratedNote ? (
      <p data-testid="cmp-verdict-exclusions" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-900">
        {toleratedNote}
      </p>
    ) : null;
  if (includeFlagged && flaggedRuns === 0) return null;
  return (
    <p data-testid="cmp-verdict-exclusions" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-900">
      {includeFlagged ? (
        <>Flagged runs are judged too (includeFlagged): the verdicts below rest also on runs whose measurement is partial or limited.</>
      ) : (
        <>
          Left out of the verdicts (still listed and charted): {excluded.length} run{excluded.length === 1 ? "" : "s"} with flags that make
          the measurement unfit to judge —{" "}
          {excluded.map((e, i) => (
            <span key={e.runId} data-testid="cmp-excluded-run" data-run-id={e.runId}>
              {i > 0 ? "; " : ""}
              <span className="font-mono">{e.runId.slice(0, 8)}</span> of {e.group} (
              {e.flags
                .map((code) =>
                  code === "dropped-iterations" && e.dropShare !== undefined
                    ? `dropped-iterations: ${fmtDropShare(e.dropShare)} of iterations dropped, over the ${DROPPED_ITERATIONS_TOLERANCE_TEXT} tolerance`
                    : code,
                )
                .join(", ")}
              )
            </span>
          ))}
          .{toleratedNote}
        </>
      )}{" "}
      {linkable && (
        <Link data-testid="cmp-include-flagged" href={`${path}?${toggled.toString()}`} className="text-blue-700 hover:underline">
          {includeFlagged ? "Leave them out" : "Judge them too"}
        </Link>
      )}
    </p>
  );
}
