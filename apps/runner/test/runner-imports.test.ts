// The runner runs users' scripts and holds no secret (docs/security.md), so what it loads is part of its fence:
// no cloud SDK (nothing there for a script that escapes the sandbox to reuse) and no code of another app (the
// worker's and the web's modules assume their secrets and services). esbuild follows every static and literal
// dynamic import from the runner's entry points, as node would load them, and lists each file it reached.
import path from "node:path";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
/** The processes the runner's image starts: the runner itself and its container health check. */
const ENTRY_POINTS = ["apps/runner/src/main.ts", "apps/runner/src/healthcheck.ts"];

const CLOUD_SDK = /(^|\/)node_modules\/@(aws-sdk|google-cloud|kubernetes)\//;
const OTHER_APP = /^apps\/(?!runner\/)[^/]+\//;

let loaded: string[];

beforeAll(async () => {
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: ENTRY_POINTS,
    bundle: true,
    platform: "node",
    format: "esm",
    outdir: "runner-bundle", // nothing is written (write: false); esbuild needs a place to name its outputs
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  loaded = Object.keys(result.metafile.inputs);
});

describe("what the runner loads", () => {
  it("reaches its own code and the host helpers (the list is real)", () => {
    expect(loaded).toEqual(expect.arrayContaining([...ENTRY_POINTS, "packages/host/src/load-network.ts"]));
  });

  it("loads no cloud SDK", () => {
    expect(loaded.filter((file) => CLOUD_SDK.test(file))).toEqual([]);
  });

  it("loads no file of another app", () => {
    expect(loaded.filter((file) => OTHER_APP.test(file))).toEqual([]);
  });
});
