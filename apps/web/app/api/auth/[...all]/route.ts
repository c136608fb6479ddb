// Better Auth's own endpoints: sign-up, sign-in, sign-out, sessions, invitations, API tokens.
import { getAuth } from "@/lib/server/singletons";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handle = async (request: Request): Promise<Response> => (await getAuth()).handler(request);
export const GET = handle;
export const POST = handle;
