// Every request passes here first.
// - OPSBENCH_AUTH=off (one person on their own machine, nobody signs in): only requests addressed to this machine's
//   loopback name are answered (Host 127.0.0.1, localhost or [::1], any port), so a web page the user visits cannot
//   drive the app through DNS rebinding (its requests carry the page's own host name).
// - Sign-in required: pages need an account: a request without a session cookie goes to the sign-in page before
//   anything renders. Only the cookie's presence is checked here; the session itself is checked where the page
//   loads its data (lib/server/workspace.ts). API routes answer 401 themselves (lib/api/errors.ts apiRoute).
import { type NextRequest, NextResponse } from "next/server";
import { env } from "@/lib/env";

const SESSION_COOKIES = ["better-auth.session_token", "__Secure-better-auth.session_token"];

/** Host header values the local app answers: loopback names with an optional port. */
const LOCAL_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/i;

/**
 * The API, Next's own files, the icon, the ways in (sign-in, sign-up, a forgotten password, invitation links), share
 * links' pages, the packed CLI (/cli/opsbench-cli.tgz: `npm install` sends no session cookie, and the CLI is no secret)
 * and /metrics (its route checks its own token or loopback rule).
 */
const OPEN_PATHS =
  /^\/(api\/|_next\/|icon\.svg$|favicon\.ico$|sign-in|sign-up|forgot-password|reset-password|invite\/|share\/[^/]+|cli\/opsbench-cli\.tgz$|metrics$)/;

export function proxy(request: NextRequest) {
  const malformed = malformedPath(request.nextUrl.pathname);
  if (malformed) return malformed;
  if (env.OPSBENCH_AUTH === "off") {
    const host = request.headers.get("host") ?? "";
    if (LOCAL_HOST.test(host)) return NextResponse.next();
    return new NextResponse(
      `421 Misdirected Request: this opsbench runs without sign-in (OPSBENCH_AUTH=off) and answers only requests to ` +
        `127.0.0.1, localhost or [::1], not to "${host.slice(0, 200)}". Open it at http://127.0.0.1:<port>/, or start it ` +
        "with OPSBENCH_AUTH=required to serve it under another name.\n",
      { status: 421, headers: { "content-type": "text/plain; charset=utf-8" } },
    );
  }
  const path = request.nextUrl.pathname;
  if (OPEN_PATHS.test(path)) return NextResponse.next();
  if (SESSION_COOKIES.some((name) => request.cookies.has(name))) return NextResponse.next();
  return NextResponse.redirect(new URL("/sign-in", request.url));
}

/**
 * A path whose percent-encoding decodes to no text (e.g. /api/v1/runs/%AD) names nothing: Next would answer it with a
 * bare 500 when it decodes the route's parameters, so it is answered here. The API answers 404 with its error body
 * (every operation with a path parameter documents it), a page 400.
 */
function malformedPath(path: string): NextResponse | null {
  try {
    decodeURIComponent(path);
    return null;
  } catch {
    const message = `The path ${JSON.stringify(path.slice(0, 200))} has a malformed percent-encoding (no UTF-8 text): it names nothing here.`;
    if (path.startsWith("/api/")) return NextResponse.json({ error: { code: "not_found", message } }, { status: 404 });
    return new NextResponse(`400 Bad Request: ${message}\n`, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
  }
}

// Every path: the Host check above covers the API and Next's own files too.
export const config = { matcher: ["/:path*"] };
