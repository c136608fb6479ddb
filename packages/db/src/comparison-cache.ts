// Comparisons of finished runs, stored by their selection (comparison.ts decides what goes in).
import type { Db } from "./client";

/** Forgets every stored comparison (bench:compare times the "cold" case with this). */
export async function forgetComparisons(db: Db): Promise<void> {
  await db.comparisonCacheEntry.deleteMany({});
}

/** Forgets the stored comparisons that include one of these runs (it was re-analysed or deleted). */
export async function forgetComparisonsOf(db: Db, runIds: readonly string[]): Promise<void> {
  if (runIds.length) await db.comparisonCacheEntry.deleteMany({ where: { OR: runIds.map((id) => ({ runIds: { contains: id } })) } });
}
