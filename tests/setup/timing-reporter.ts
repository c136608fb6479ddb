// A vitest reporter that keeps where the suite's time went: for each file, its project, how long its set-up
// (tests/setup/*-file.ts: a database, a worker, a web server) and its own tests and hooks took. scripts/test.mjs
// reads it at the end and prints the slowest files and the set-up's share (docs/testing.md).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** One file's row in .data/test-timings.json. */
export interface FileTiming {
  file: string;
  project: string;
  /** Seconds importing the set-up files (per-file services). */
  setupSeconds: number;
  /** Seconds importing the test file itself. */
  collectSeconds: number;
  /** Seconds in its tests and hooks (beforeAll starts its own stack, workers and runs). */
  testSeconds: number;
  ok: boolean;
}

export const TIMINGS_FILE = path.resolve(import.meta.dirname, "../../.data/test-timings.json");

export default class TimingReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const rows: FileTiming[] = testModules.map((m) => {
      const d = m.diagnostic();
      return {
        file: path.relative(path.resolve(import.meta.dirname, "../.."), m.moduleId),
        project: m.project.name,
        setupSeconds: d.setupDuration / 1000,
        collectSeconds: d.collectDuration / 1000,
        testSeconds: d.duration / 1000,
        ok: m.ok(),
      };
    });
    mkdirSync(path.dirname(TIMINGS_FILE), { recursive: true });
    writeFileSync(TIMINGS_FILE, JSON.stringify(rows, null, 1));
  }
}
