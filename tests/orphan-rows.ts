// "No row without its parent", checked the way the fault and delete tests end: by the foreign keys'
// own columns, and for share links (which name runs and studies in JSON) by their subject.
import type { Db } from "@opsbench/db";

/** Rows whose parent is gone, by the foreign keys' own columns (none may exist after any delete). */
export async function orphans(db: Db): Promise<number> {
  const tables = ["run_steps", "result_seconds", "load_seconds", "metric_seconds", "infra_points", "run_events"];
  let n = 0;
  for (const t of tables) {
    const [row] = await db.$queryRawUnsafe<Array<{ n: bigint }>>(
      `SELECT count(*) AS n FROM ${t} c WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = c.run_id)`,
    );
    n += Number(row!.n);
  }
  const [runs] = await db.$queryRawUnsafe<Array<{ n: bigint }>>(
    `SELECT count(*) AS n FROM runs r WHERE (r.study_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM studies s WHERE s.id = r.study_id))
       OR (r.target_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM targets t WHERE t.id = r.target_id))`,
  );
  // Share links name runs and studies in JSON, not by foreign key.
  const [links] = await db.$queryRawUnsafe<Array<{ n: bigint }>>(
    `SELECT count(*) AS n FROM share_links l WHERE
       (l.subject ? 'studyId' AND NOT EXISTS (SELECT 1 FROM studies s WHERE s.id::text = l.subject->>'studyId'))
       OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(COALESCE(l.subject->'runIds', '[]'::jsonb)) AS x(id)
                  WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id::text = x.id))`,
  );
  return n + Number(runs!.n) + Number(links!.n);
}
