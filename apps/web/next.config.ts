import path from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";
import { env } from "./lib/env";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Every answer's security headers. Next's own hydration is inline script, hence 'unsafe-inline' for scripts and
 * styles (no third-party origin is allowed anywhere); `next dev` also needs eval. Exports draw charts to data:
 * and blob: URLs. No page may be framed.
 */
function securityHeaders(dev: boolean) {
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  return [
    { key: "Content-Security-Policy", value: csp },
    { key: "X-Frame-Options", value: "DENY" },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
    { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
  ];
}

const nextConfig = (phase: string): NextConfig => ({
  // Workspace packages are TypeScript sources; Next compiles them with the app.
  transpilePackages: ["@opsbench/api", "@opsbench/core", "@opsbench/db", "@opsbench/jobs"],
  // Node-only libraries with native bits, workers or dynamic requires stay outside the bundle.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "@prisma/client", "bullmq", "ioredis", "pino", "prom-client"],
  // npm workspaces hoist dependencies to the repo root.
  turbopack: { root: repoRoot },
  outputFileTracingRoot: repoRoot,
  poweredByHeader: false,
  // `npm run typecheck` checks the app with every other project (TypeScript 7, scripts/typecheck.mjs), and `npm test`
  // runs it before it builds: the build need not check again with TypeScript 5 (24 s of each build).
  typescript: { ignoreBuildErrors: true },
  // Developers building side by side (e.g. two checks at once) can keep their builds apart.
  distDir: env.OPSBENCH_NEXT_DIST_DIR,
  headers: async () => [{ source: "/:path*", headers: securityHeaders(phase === PHASE_DEVELOPMENT_SERVER) }],
});

export default nextConfig;
