// Cursor pagination of the API's lists (docs/api.md "Pages"): a list in a stable order (newest first: its time, then
// its id; or by name) answers a page and the cursor of the row after it. The cursor is the last row's sort key,
// opaque to clients (base64url of JSON), so a row added or removed between two requests moves no row into or out of
// a later page twice; it is only decoded again here, and one that does not decode is the caller's mistake (422).
import { z } from "zod";
import { base64ToBytes, bytesToBase64 } from "./histograms/base64-bytes";

/** The sort key of the last row of a page: its time (ISO), when the order has one, and its unique key (id, name). */
export interface PageKey {
  at?: string;
  key: string;
}

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

// No NUL: Postgres refuses one in a text comparison (a 500, not the 422 a bad cursor is).
const pageKeySchema = z.strictObject({
  at: z.iso.datetime().optional(),
  key: z
    .string()
    .min(1)
    .max(300)
    .refine((k) => !k.includes("\0")),
});

// base64url without Node's Buffer (core also runs in browsers).
export const encodePageCursor = (k: PageKey): string =>
  bytesToBase64(new TextEncoder().encode(JSON.stringify(k)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const decodeBase64Url = (text: string) =>
  new TextDecoder("utf-8", { fatal: true }).decode(base64ToBytes(text.replace(/-/g, "+").replace(/_/g, "/")));

const NOT_A_CURSOR = "not a cursor this list gave: pass nextCursor back as it came";

/** A cursor as a query gives it, decoded; anything else is refused naming what a cursor is. */
export const pageCursorSchema = z
  .string()
  .min(1)
  .max(600)
  .transform((text, ctx): PageKey => {
    let parsed: unknown;
    try {
      parsed = /^[A-Za-z0-9_-]+$/.test(text) ? JSON.parse(decodeBase64Url(text)) : undefined;
    } catch {
      parsed = undefined;
    }
    const key = pageKeySchema.safeParse(parsed);
    if (!key.success) {
      ctx.addIssue({ code: "custom", message: NOT_A_CURSOR });
      return z.NEVER;
    }
    return key.data;
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A cursor of a list newest first by createdAt, then id (runs, studies): a time and a row id. */
export const newestFirstCursorSchema = pageCursorSchema.refine((k) => k.at !== undefined && UUID.test(k.key), NOT_A_CURSOR);
/** A cursor of a list by name (targets, workloads: a name is unique in a workspace). */
export const byNameCursorSchema = pageCursorSchema.refine((k) => k.at === undefined, NOT_A_CURSOR);
/** A cursor of a list newest first by a time, then a unique key (series: their last run, then their key). */
export const timeKeyCursorSchema = pageCursorSchema.refine((k) => k.at !== undefined, NOT_A_CURSOR);

/** A page's size as a query gives it: 1 to MAX_PAGE_LIMIT rows. */
export const pageLimitSchema = z.coerce
  .number()
  .int("a whole number of rows")
  .min(1, "at least 1 row")
  .max(MAX_PAGE_LIMIT, `at most ${MAX_PAGE_LIMIT} rows a page`);

/** ?cursor=&limit= of a list, with the cursor its order gives. */
export const pageQuery = (cursor: typeof newestFirstCursorSchema) =>
  z.object({ cursor: cursor.optional(), limit: pageLimitSchema.optional() });

export interface Page<T> {
  items: T[];
  /** The cursor of the next page; null on the last. */
  nextCursor: string | null;
}

/** A page from `limit + 1` rows read: the extra row only says there is a next page. */
export function pageOf<T>(rows: readonly T[], limit: number, keyOf: (row: T) => PageKey): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodePageCursor(keyOf(last)) : null };
}
