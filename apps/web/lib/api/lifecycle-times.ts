/** When a run or a study was made, started and finished, as the API writes times (ISO 8601). */
export interface LifecycleTimes {
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function lifecycleTimes(row: { createdAt: Date; startedAt: Date | null; finishedAt: Date | null }): LifecycleTimes {
  return { createdAt: row.createdAt.toISOString(), startedAt: iso(row.startedAt), finishedAt: iso(row.finishedAt) };
}
