// Cursor pages of the lists (docs/api.md "Pages"): `?cursor=&limit=` answers `{ items, nextCursor }`, newest first
// (createdAt, then id) for runs and studies, by name for targets and workloads. Without either parameter a list
// answers as it always did, a plain array (the first page: 50 runs or studies, every target and workload), with the
// next page's address in a `Link: <...>; rel="next"` header when there is one, so clients written before pages
// keep working.
import { byNameCursorSchema, newestFirstCursorSchema, pageLimitSchema, timeKeyCursorSchema } from "@opsbench/core";
import { z } from "zod";

/** A page of a list: its rows and the cursor of the next page (null on the last). */
export const pageAnswer = <T extends z.ZodType>(item: T) => z.strictObject({ items: z.array(item), nextCursor: z.string().nullable() });

/** A list's answer: the plain array (no page asked for) or a page. */
export const listOrPage = <T extends z.ZodType>(item: T) => z.union([z.array(item), pageAnswer(item)]);

export const newestFirstPageQuery = z.object({ cursor: newestFirstCursorSchema.optional(), limit: pageLimitSchema.optional() });
export const byNamePageQuery = z.object({ cursor: byNameCursorSchema.optional(), limit: pageLimitSchema.optional() });
export const seriesPageQuery = z.object({ cursor: timeKeyCursorSchema.optional(), limit: pageLimitSchema.optional() });

/** Whether the query asked for a page (then the answer is `{ items, nextCursor }`). */
export const asksForPage = (request: Request) => {
  const q = new URL(request.url).searchParams;
  return q.has("cursor") || q.has("limit");
};
