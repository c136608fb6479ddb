// A web build stopped midway (the suite's build beside its first files, when the run ends before it does): the
// promise rejects once no process of the build is left, and no stamp passes the half-written directory off as built.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { testDatabaseUrl, testRedisUrl } from "../../../tests/helpers";
import { repoRoot } from "../src/env";
import { ensureWebBuild } from "../src/processes";

const distDir = `.next-stopped-${process.pid}`;
const outDir = path.join(repoRoot, "apps/web", distDir);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** The processes of this build, by the build directory in their environment, with their command lines. */
function buildProcesses(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`OPSBENCH_NEXT_DIST_DIR=${distDir}`))
        found.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

it("a build stopped midway rejects, and leaves no process of it and no stamp", async () => {
  const stop = new AbortController();
  const settled = ensureWebBuild(
    { DATABASE_URL: testDatabaseUrl(), REDIS_URL: testRedisUrl(), OPSBENCH_WEB_PORT: 0, OPSBENCH_NEXT_DIST_DIR: distDir },
    () => {},
    { signal: stop.signal },
  ).catch((err: Error) => err);
  // Stopped once the build's command (`next build`) runs under npm, so the stop has more than npm itself to reach.
  const until = Date.now() + 60_000;
  while (!buildProcesses().some((cmd) => cmd.includes("next"))) {
    expect(Date.now(), "next build did not start within 60 s").toBeLessThan(until);
    await new Promise((r) => setTimeout(r, 100));
  }
  stop.abort();
  const result = await settled;
  expect(result).toBeInstanceOf(Error);
  expect((result as Error).message).toBe("the web build was stopped before it finished");
  expect(buildProcesses()).toEqual([]);
  expect(existsSync(path.join(outDir, "opsbench-source-hash"))).toBe(false);
});
