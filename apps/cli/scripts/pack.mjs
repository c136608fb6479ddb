// npm run cli:pack [-- --out DIR]: the CLI anyone installs (docs/ci.md). Bundles the remote mode
// (src/packed-main.ts and what it imports: @opsbench/api's schemas, the parts of @opsbench/core it uses, zod) into
// one file with esbuild, writes a package.json without dependencies beside it, and `npm pack`s that folder. The
// bundle must not hold the database client, the queue or the local-process code: the build fails if it does.
// Prints the tarball's path on stdout.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const cliDir = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { out: { type: "string", default: path.join(cliDir, "dist") } } });
const out = path.resolve(values.out);
const stage = path.join(cliDir, "dist", "package");
const own = JSON.parse(readFileSync(path.join(cliDir, "package.json"), "utf8"));

/** Modules the installed CLI must never carry (remote mode needs none of them). */
const FORBIDDEN = [
  /packages\/db\//,
  /packages\/jobs\//,
  /packages\/providers\//,
  /@prisma\//,
  /node_modules\/(pg|ioredis|bullmq|better-auth)\//,
];

rmSync(stage, { recursive: true, force: true });
mkdirSync(path.join(stage, "bin"), { recursive: true });
const result = await build({
  entryPoints: [path.join(cliDir, "src/packed-main.ts")],
  outfile: path.join(stage, "bin/opsbench.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minifySyntax: true,
  metafile: true,
  legalComments: "inline",
  // CommonJS dependencies bundled into ESM (yaml) still call require() for Node's own modules.
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as opsbenchRequire } from "node:module";\nconst require = opsbenchRequire(import.meta.url);',
  },
  define: { OPSBENCH_CLI_VERSION: JSON.stringify(own.version) },
  logLevel: "warning",
});
const carried = Object.keys(result.metafile.inputs).filter((input) => FORBIDDEN.some((re) => re.test(input)));
if (carried.length) {
  console.error(`cli:pack: the bundle would carry modules remote mode must not need:\n  ${carried.join("\n  ")}`);
  process.exit(1);
}
writeFileSync(
  path.join(stage, "package.json"),
  `${JSON.stringify(
    {
      name: "@opsbench/cli",
      version: own.version,
      license: own.license,
      description: "opsbench's command line against an opsbench server (OPSBENCH_URL, OPSBENCH_TOKEN): runs, script runs, baselines, gates",
      type: "module",
      bin: { opsbench: "bin/opsbench.mjs" },
      // npm packs LICENSE and README whatever `files` says; NOTICE only when listed.
      files: ["bin", "NOTICE"],
      engines: { node: ">=20" },
    },
    null,
    2,
  )}\n`,
);
writeFileSync(
  path.join(stage, "README.md"),
  "# @opsbench/cli\n\nopsbench's command line against an opsbench server. Set `OPSBENCH_URL` and `OPSBENCH_TOKEN` (an API token\nfrom the server's settings page), then `opsbench --help`. See docs/ci.md in the opsbench repository.\n",
);
// The licence and the project's notices go with the package.
copyFileSync(path.join(cliDir, "LICENSE"), path.join(stage, "LICENSE"));
copyFileSync(path.join(cliDir, "../../NOTICE"), path.join(stage, "NOTICE"));
mkdirSync(out, { recursive: true });
const packed = JSON.parse(
  execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
    cwd: stage,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }),
);
console.log(path.join(out, packed[0].filename));
