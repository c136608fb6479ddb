// The CLI, the worker and the runner as one file each, bundled from their sources at the start of a test run, so the
// many processes the suite starts skip tsx: a CLI start took 2.3 s of CPU through tsx and 1.0 s bundled (measured
// side by side on `opsbench --help`), and the suite starts a few hundred of them. The sources are the same; what
// node_modules holds stays outside the bundle, imported from where it is installed. processes.ts and the tests'
// runOpsbench use them when OPSBENCH_NODE_BUNDLES names their folder (docs/testing.md).
import { readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

const repoRoot = path.resolve(import.meta.dirname, "../..");

/** Each bundle's name and its source entry point. */
export const NODE_BUNDLES = {
  cli: "apps/cli/src/main.ts",
  worker: "apps/worker/src/main.ts",
  runner: "apps/runner/src/main.ts",
} as const;

// Installed packages stay imports, resolved now to their files (a workspace's own node_modules included), so the
// bundle works from any folder. Our packages (@opsbench/*) are sources: bundled.
const installedPackagesOutside: Plugin = {
  name: "installed-packages-outside",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith("node:")) return { path: args.path, external: true };
      if (args.path.startsWith("@opsbench/") || args.kind === "entry-point" || args.pluginData === "resolving") return undefined;
      const found = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "resolving" });
      if (found.errors.length > 0 || !found.path) return undefined;
      return { path: found.path, external: true };
    });
  },
};

// A source that finds files beside it (import.meta.url, import.meta.dirname) still finds them from inside the bundle.
const ownLocation: Plugin = {
  name: "own-location",
  setup(b) {
    b.onLoad({ filter: /\.(ts|mts|mjs)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = readFileSync(args.path, "utf8")
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(args.path)));
      return { contents: source, loader: args.path.endsWith(".ts") || args.path.endsWith(".mts") ? "ts" : "js" };
    });
  },
};

/**
 * Builds every bundle into `dir`, written beside it and moved into place whole, so a reader never sees half of one.
 * Split into chunks: what a command imports only when it runs (`await import`, as the CLI's admin command does
 * Better Auth) stays out of every other start; one bundle file would hoist its installed packages' imports to its top.
 */
export async function buildNodeBundles(dir: string): Promise<void> {
  const partial = `${dir}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(NODE_BUNDLES).map(([name, entry]) => [name, path.join(repoRoot, entry)])),
    outdir: partial,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    splitting: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    tsconfig: path.join(repoRoot, "tsconfig.base.json"),
    plugins: [installedPackagesOutside, ownLocation],
    // Installed packages resolved to the files Node itself would load: no "module" condition or field (esbuild's
    // default, which picked @opentelemetry/api's ESM build, whose extensionless imports Node cannot follow).
    conditions: ["node"],
    mainFields: ["main"],
    // CommonJS code in the bundle still calls require() for Node's own modules.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    logLevel: "error",
  });
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
}
