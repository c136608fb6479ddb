// What the comparison pages render and the exports read: the ComparisonView
// from packages/db, a title, and cost per group. The same shape feeds the
// in-app page, the printable report and the public share page (there stripped to
// a whitelist: app/api/v1/public/public-share.ts).
import type { BreakEvenPair, GroupCost } from "@opsbench/core";
import type { ComparisonView } from "@opsbench/db";

export type { BreakEvenPair, GroupCost };

/** A ComparisonView (what POST /api/v1/comparisons returns), with a title and costs. */
export interface CompareData extends ComparisonView {
  /** A heading for the comparison: the study's name, a share link's title, or null. */
  title: string | null;
  /**
   * Cost per group, aligned with groups; null where no cost is known.
   * Filled by core's groupCost() from the runs' priced costs.
   */
  costs: Array<GroupCost | null>;
  /** Cost vs request rate for each serverful x serverless pair of groups with cost models (where serverless stops being cheaper). */
  breakEvens: BreakEvenPair[];
  generatedAt: string;
}

/** The selection a comparison shows (its groups' labels and run ids), e.g. for a URL or a share link. */
export const selectionOf = (data: Pick<ComparisonView, "groups">) => ({
  groups: data.groups.map((g) => ({ label: g.label, runIds: g.runs.map((r) => r.id) })),
});
