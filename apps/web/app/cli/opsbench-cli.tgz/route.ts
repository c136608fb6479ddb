// GET /cli/opsbench-cli.tgz: the packed CLI that goes with this server, for teams whose CI reaches no registry
// (`npm install -g https://<server>/cli/opsbench-cli.tgz`, or the Action's `cli` input; docs/ci.md). The web image
// packs it from its own source at build time (the Dockerfile's cli-pack stage, into apps/web/cli-dist/);
// OPSBENCH_CLI_TARBALL names another file. No sign-in (proxy.ts lets it through): npm sends no session, and the CLI
// holds no secret. `Digest` carries its sha512, which the Action's `cli-sha512` input can pin.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ApiError } from "@/lib/api/errors";
import { env } from "@/lib/env";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Where the web image's build puts it (the working folder is apps/web). */
const BUILT_IN = path.join(process.cwd(), "cli-dist", "opsbench-cli.tgz");

let cached: { file: string; body: Buffer; sha512: string } | null = null;

async function tarball(): Promise<typeof cached> {
  const file = env.OPSBENCH_CLI_TARBALL ?? BUILT_IN;
  if (cached?.file === file) return cached;
  // A file named at run time: Next's tracing is told not to follow it (else it takes in the whole project).
  const body = await readFile(/* turbopackIgnore: true */ file).catch(() => null);
  if (!body) return null;
  cached = { file, body, sha512: createHash("sha512").update(body).digest("base64") };
  return cached;
}

export async function GET() {
  const t = await tarball();
  if (!t)
    return new ApiError(
      "not_found",
      "this server has no packed CLI: the opsbench web image serves its own; a server run from a checkout serves the file OPSBENCH_CLI_TARBALL names (npm run cli:pack makes one)",
    ).toResponse();
  return new Response(new Uint8Array(t.body), {
    headers: {
      "content-type": "application/gzip",
      "content-disposition": 'attachment; filename="opsbench-cli.tgz"',
      "content-length": String(t.body.length),
      digest: `sha-512=${t.sha512}`,
      "x-opsbench-integrity": `sha512-${t.sha512}`,
      "cache-control": "no-cache",
    },
  });
}
