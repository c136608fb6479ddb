// Pages need an account: a request without a session cookie goes to the sign-in page before anything renders.
// Only the cookie's presence is checked here; the session itself is checked where the page loads its data
// (lib/server/workspace.ts). API routes answer 401 themselves (lib/api/errors.ts apiRoute).
import { type NextRequest, NextResponse } from "next/server";
import { env } from "@/lib/env";

const SESSION_COOKIES = ["better-auth.session_token", "__Secure-better-auth.session_token"];

export function proxy(request: NextRequest) {
  // OPSBENCH_AUTH=off: one person on their own machine, nobody signs in.
  if (env.OPSBENCH_AUTH === "off") return NextResponse.next();
  if (SESSION_COOKIES.some((name) => request.cookies.has(name))) return NextResponse.next();
  return NextResponse.redirect(new URL("/sign-in", request.url));
}

export const config = {
  // Everything but the API, Next's own files, the icon, the ways in (sign-in, sign-up, invitation links) and
  // share links' pages (/share/<token>; the workspace's list of links at /share is not public).
  matcher: ["/((?!api/|_next/|icon\\.svg|favicon\\.ico|sign-in|sign-up|invite/|share/[^/]+).*)"],
};
