// Where a page of a list starts (core's page-cursor.ts): the rows after its cursor in the list's order. Every
// list reads one row more than its page (pageOf) to know whether a next page exists.
import { DEFAULT_PAGE_LIMIT, type PageKey } from "@opsbench/core";

export interface PageArgs {
  /** The decoded cursor of the previous page's last row (core's pageCursorSchema); absent: the first page. */
  cursor?: PageKey | undefined;
  limit?: number | undefined;
}

/** Newest first, then by id: a total order even for rows created in the same millisecond. */
export const NEWEST_FIRST = [{ createdAt: "desc" as const }, { id: "desc" as const }];

/** The rows after a newest-first cursor: created before it, or at the same instant with a smaller id. */
export function afterNewest(cursor: PageKey | undefined) {
  if (!cursor?.at) return {};
  const at = new Date(cursor.at);
  return { OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: cursor.key } }] };
}

/** The rows after a by-name cursor. */
export const afterName = (cursor: PageKey | undefined) => (cursor ? { name: { gt: cursor.key } } : {});

export const limitOf = (args: PageArgs) => args.limit ?? DEFAULT_PAGE_LIMIT;

/** A newest-first row's key in a cursor. */
export const newestKey = (r: { createdAt: Date; id: string }): PageKey => ({ at: r.createdAt.toISOString(), key: r.id });
