import { configDefaults, defineConfig } from "vitest/config";
import { FileOrder } from "./tests/setup/file-order.ts";

// Three projects, each starting only what its files use:
//   unit         pure code: no Postgres, Redis, worker, k6 or web build (`npm run test:unit`);
//   services     each file gets a database cloned from a migrated template and a Redis key prefix of its own, and a
//                worker of its own when it asks (openTestStack); the files in `webFiles` (browser tests, the CLI
//                against a server, the hostile-input suite) also get a worker and a `next start` of the run's one
//                web build before they begin (tests/setup/service-file.ts);
//   own-process  the same, in a process of its own per file (below).
// A file belongs to the first project whose globs match it. The unit and services files share their processes
// (isolate: false): a fresh module registry per file cost every file two seconds or more of CPU in imports (the
// worker, Prisma), 88 against 37 CPU-s for 22 small integration files (docs/testing.md). The file's services are
// opened and closed around it all the same (tests/setup/), and process.env is put back after it. The files with a
// web app and those without are one project because vitest reuses a process only for the next file of the same
// project: as two projects (browser, integration) whose files alternate in the queue, the 82 integration files of
// a full run took 33 processes (docs/testing.md).
const unit = [
  "packages/core/test/**/*.test.ts",
  "tests/self-hosting.test.ts",
  "tests/go-licences.test.ts",
  "tests/licence-files.test.ts",
  "tests/openapi-security.test.ts",
  "apps/cli/test/junit-schema.test.ts",
  "apps/cli/test/github-actions.test.ts",
  "apps/cli/test/script-names.test.ts",
  "tests/metric-catalog.test.ts",
  "tests/verdict-version.test.ts",
  "engine/test/**/*.test.ts",
  "engine/conformance/**/*.test.ts",
  "apps/runner/test/runner-imports.test.ts",
  "apps/web/test/csv-cells.test.ts", // pure functions: no web server, worker or database for it
];
// The files that get the web app (and a worker) before they begin: the browser tests; the CLI against a server; the
// hostile-input suite (tests/hostile/), which plays a stranger, a viewer, an editor and a user's script against a
// running server.
const webFiles = [
  "apps/web/test/**/*.test.ts",
  "tests/demo.test.ts",
  "tests/journey*.test.ts",
  "apps/cli/test/remote-cli.test.ts",
  "apps/cli/test/packed-cli.test.ts",
  "apps/cli/test/gate-verdicts.test.ts",
  "apps/cli/test/external-run.test.ts",
  "apps/cli/test/ingest.test.ts",
  "apps/cli/test/remote-resilience.test.ts",
  "apps/cli/test/pr-comment.test.ts", // the history gate and the comment against the file's web app
  "tests/hostile/**/*.test.ts",
  "tests/knative-study.test.ts", // the study's compare page, in a browser
];
// Of those, the files whose web app requires sign-in from their start (startSignedInWeb or startWebWithoutAccounts,
// tests/test-identity.ts): theirs is started that way at once, not as the sign-in-off one they would replace before
// their first test (a `next start` of about 3 CPU-s for nothing, 16 files). A file missing here still passes.
const signedInWebFiles = [
  "apps/web/test/target-form.e2e.test.ts",
  "apps/web/test/authorization-matrix.test.ts",
  "apps/cli/test/ingest.test.ts",
  "apps/cli/test/remote-resilience.test.ts",
  "apps/cli/test/gate-verdicts.test.ts",
  "apps/cli/test/pr-comment.test.ts",
  "apps/cli/test/external-run.test.ts",
  "tests/journey.e2e.test.ts",
  "tests/hostile/auth-sign-up.test.ts",
  "tests/hostile/auth-throttle.test.ts",
  "tests/hostile/creds-editor.test.ts",
  "tests/hostile/limits-*.test.ts",
];
const everything = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "tests/**/*.test.ts"];

// Files that change what a process holds for good (a target kind registered at run time: the catalog closes at its
// first read) and so run in a process of their own; every other services file shares its process with the files
// before it (isolate: false below).
const ownProcess = ["tests/test-kind.test.ts"];

// Files that compare timings or need the CPU to themselves: each runs while no other
// services file does (tests/machine-share.ts).
const aloneFiles = [
  "apps/worker/test/placement-comparison.test.ts", // isolated vs co-located latency
];
// local-engine's spike shares the machine: it judges each scale-up against the CPU the autoscaler was shown, and
// passed beside two CPU hogs; alone, it held two of the three slots idle for its minute.

// Services files run in this many parallel slots: five on the 2-core machine, where many files mostly wait (a deploy,
// a run's planned seconds). With four, a fresh clone's vitest kept the cores 84% busy once the files shared their
// processes (before that, at 89-95%, five were no faster than four: docs/testing.md). Load tests compare their
// numbers with k6's own summary, so contention does not fail them. OPSBENCH_TEST_SLOTS sets another number, e.g. on
// a bigger machine.
const SERVICE_WORKERS = Number(process.env.OPSBENCH_TEST_SLOTS) || 5;

export default defineConfig({
  // Web modules import each other as "@/..." (apps/web/tsconfig.json); tests load the route contracts.
  resolve: { tsconfigPaths: true },
  // The web app's tsconfig keeps JSX for Next (preserve); a test that loads a web module with components
  // (tests/test-kind.test.ts: the target form's kinds) needs it compiled.
  oxc: { jsx: { runtime: "automatic" } },

  test: {
    testTimeout: 180_000,
    // The longest first, the files that need the machine alone last (tests/setup/file-order.ts).
    sequence: { sequencer: FileOrder },
    hookTimeout: 300_000,
    projects: [
      {
        extends: true,
        // Pure code shares one module registry per worker (isolate: false): a fresh one per file cost each file a
        // second or more of CPU in imports alone (docs/testing.md).
        test: { name: "unit", include: unit, maxWorkers: 3, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: "services",
          include: everything,
          exclude: [...configDefaults.exclude, ...unit, ...ownProcess],
          globalSetup: ["tests/setup/services.ts"],
          setupFiles: ["tests/setup/service-file.ts"],
          provide: { aloneFiles, webFiles, signedInWebFiles },
          maxWorkers: SERVICE_WORKERS,
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "own-process",
          include: ownProcess,
          globalSetup: ["tests/setup/services.ts"],
          setupFiles: ["tests/setup/service-file.ts"],
          provide: { aloneFiles, webFiles, signedInWebFiles },
          maxWorkers: SERVICE_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
