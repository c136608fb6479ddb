import path from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";
import { env } from "./lib/env";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const nextConfig: NextConfig = {
  // Workspace packages are TypeScript sources; Next compiles them with the app.
  transpilePackages: ["@opsbench/core", "@opsbench/db", "@opsbench/jobs"],
  // Node-only libraries with native bits, workers or dynamic requires stay outside the bundle.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "@prisma/client", "bullmq", "ioredis"],
  // npm workspaces hoist dependencies to the repo root.
  turbopack: { root: repoRoot },
  outputFileTracingRoot: repoRoot,
  poweredByHeader: false,
  // Developers building side by side (e.g. two checks at once) can keep their builds apart.
  distDir: env.OPSBENCH_NEXT_DIST_DIR,
};

export default nextConfig;
