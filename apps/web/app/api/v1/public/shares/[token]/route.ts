// Public: what a share link shows, as JSON. No workspace, no account: the token
// alone decides, and an unknown or revoked one is a plain 404.
import { NextResponse } from "next/server";
import { ApiError, toErrorResponse } from "@/lib/api/errors";
import { loadPublicShare } from "@/features/share/public-share";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const PUBLIC_HEADERS = { "cache-control": "no-store", "x-robots-tag": "noindex, nofollow", "referrer-policy": "no-referrer" };

export async function GET(request: Request, ctx: { params: Promise<{ token: string }> }): Promise<Response> {
  try {
    const { token } = await ctx.params;
    const share = await loadPublicShare(token);
    if (!share) throw new ApiError("not_found", "this link does not exist or was revoked");
    return NextResponse.json(share, { headers: PUBLIC_HEADERS });
  } catch (err) {
    const res = toErrorResponse(err, `GET ${new URL(request.url).pathname.replace(/[^/]+$/, ":token")}`);
    for (const [k, v] of Object.entries(PUBLIC_HEADERS)) res.headers.set(k, v);
    return res;
  }
}
