// A list's answer (packages/api pages.ts): a page, { items, nextCursor }, when the query asked for one (?cursor= or
// ?limit=); otherwise the plain array clients read before pages, with the next page's address in a Link header.
import type { Page } from "@opsbench/core";
import { asksForPage } from "@opsbench/api";
import { NextResponse } from "next/server";

export function listAnswer<T, U>(request: Request, page: Page<T>, toItem: (row: T) => U): Response {
  const items = page.items.map(toItem);
  if (asksForPage(request)) return NextResponse.json({ items, nextCursor: page.nextCursor });
  const res = NextResponse.json(items);
  if (page.nextCursor) {
    const next = new URL(request.url);
    next.searchParams.set("cursor", page.nextCursor);
    next.searchParams.set("limit", String(items.length));
    // Relative: the server's own address may differ from the one the client used (a proxy).
    res.headers.set("link", `<${next.pathname}${next.search}>; rel="next"`);
  }
  return res;
}
