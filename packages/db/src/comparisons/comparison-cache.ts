// Comparisons of finished runs, stored by their selection (comparison.ts decides what goes in).
import { Prisma } from "../generated/prisma/client";
import type { Db } from "../client";

/** Stored comparisons kept per workspace (the newest); a 24 h comparison's series take a few MB. */
export const KEPT_COMPARISONS = 100;

/** Stores a computed comparison, and forgets the workspace's oldest beyond KEPT_COMPARISONS. */
export async function keepComparison(
  db: Db,
  entry: { key: string; workspaceId: string; runIds: readonly string[]; view: Prisma.InputJsonValue },
): Promise<void> {
  try {
    await db.comparisonCacheEntry.create({ data: { ...entry, runIds: entry.runIds.join(",") } });
  } catch (err) {
    // Two requests computing the same comparison at once: the first one stored wins.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") return;
    throw err;
  }
  await db.$executeRaw`DELETE FROM comparison_cache WHERE key IN (
    SELECT key FROM comparison_cache WHERE workspace_id = ${entry.workspaceId}::uuid ORDER BY created_at DESC OFFSET ${KEPT_COMPARISONS})`;
}

/** Forgets every stored comparison (bench:compare times the "cold" case with this). */
export async function forgetComparisons(db: Db): Promise<void> {
  await db.comparisonCacheEntry.deleteMany({});
}

/** Forgets the stored comparisons that include one of these runs (it was re-analysed or deleted). */
export async function forgetComparisonsOf(db: Db, runIds: readonly string[]): Promise<void> {
  if (runIds.length) await db.comparisonCacheEntry.deleteMany({ where: { OR: runIds.map((id) => ({ runIds: { contains: id } })) } });
}
