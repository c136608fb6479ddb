// Better Auth's own endpoints: sign-up, sign-in, sign-out, sessions, invitations, API tokens. Sign-in and sign-up
// are throttled first (lib/server/auth-throttle.ts); Better Auth learns the client's address from our header only.
import { CLIENT_ADDRESS_HEADER } from "@opsbench/db";
import { queuePrefix } from "@opsbench/jobs";
import { env, trustedProxies } from "@/lib/env";
import { throttleAuth } from "@/lib/server/auth-throttle";
import { clientAddress } from "@/lib/server/client-address";
import { getAuth, getRateLimitRedis } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handle = async (request: Request): Promise<Response> => {
  const client = clientAddress(request.headers, trustedProxies);
  const throttled = await throttleAuth({ redis: getRateLimitRedis(), prefix: queuePrefix(env.REDIS_URL) }, request, client);
  if (throttled) return throttled;
  const headers = new Headers(request.headers);
  headers.set(CLIENT_ADDRESS_HEADER, client);
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  return (await getAuth()).handler(new Request(request.url, { method: request.method, headers, body, signal: request.signal }));
};
export const GET = handle;
export const POST = handle;
