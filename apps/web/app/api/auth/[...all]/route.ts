// Better Auth's own endpoints: sign-up, sign-in, sign-out, sessions, invitations, API tokens. Sign-in and sign-up
// are throttled first (lib/server/auth-throttle.ts: a successful sign-in's answer also marks the browser a known client
// of the account); Better Auth learns the client's address from our header only.
import { createHmac } from "node:crypto";
import { CLIENT_ADDRESS_HEADER } from "@opsbench/db";
import { queuePrefix } from "@opsbench/jobs";
import { env, trustedProxies } from "@/lib/env";
import { type KnownClientKey, throttleAuth } from "@/lib/server/auth-throttle";
import { clientAddress } from "@/lib/server/client-address";
import { getAuth, getRateLimitRedis } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The key of the known-client cookie (auth-throttle.ts): derived from the auth secret, so it changes with it. */
async function knownClientKey(request: Request): Promise<KnownClientKey> {
  const { secret } = await (await getAuth()).$context;
  return {
    key: createHmac("sha256", secret).update("opsbench known-client cookie").digest(),
    secure: (env.OPSBENCH_PUBLIC_URL ?? request.url).startsWith("https:"),
  };
}

const handle = async (request: Request): Promise<Response> => {
  const client = clientAddress(request.headers, trustedProxies);
  const store = { redis: getRateLimitRedis(), prefix: queuePrefix(env.REDIS_URL) };
  const throttle = await throttleAuth(store, request, client, await knownClientKey(request));
  if (throttle.refused) return throttle.refused;
  const headers = new Headers(request.headers);
  headers.set(CLIENT_ADDRESS_HEADER, client);
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  const answer = await (await getAuth()).handler(
    new Request(request.url, { method: request.method, headers, body, signal: request.signal }),
  );
  return throttle.settle(answer);
};
export const GET = handle;
export const POST = handle;
