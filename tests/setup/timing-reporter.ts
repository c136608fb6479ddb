// A vitest reporter that keeps where the suite's time went: for each file, its project, how long its set-up
// (tests/setup/service-file.ts: a database, a worker, a web server) and its own tests and hooks took. scripts/test.mjs
// reads it at the end and prints the slowest files and the set-up's share (docs/testing.md).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { fileCpuDir, runTagOf } from "../stack-env";

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
  /** CPU seconds of the file's process and everything it started (services and own-process files; else null). */
  cpuSeconds: number | null;
  /** When the file's services were opened and closed (ms since the epoch; services and own-process files; else null). */
  startedAt: number | null;
  endedAt: number | null;
  /**
   * The process the file ran in (services and own-process files; else null). Services files share theirs with the
   * files before it (isolate: false): what a file left running shows in the next one, found by pid and time.
   */
  pid: number | null;
  ok: boolean;
}

export const TIMINGS_FILE = path.resolve(import.meta.dirname, "../../.data/test-timings.json");

export default class TimingReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const notes = fileNotes();
    const rows: FileTiming[] = testModules.map((m) => {
      const d = m.diagnostic();
      const file = path.relative(path.resolve(import.meta.dirname, "../.."), m.moduleId);
      const note = notes.get(file);
      return {
        file,
        project: m.project.name,
        setupSeconds: d.setupDuration / 1000,
        collectSeconds: d.collectDuration / 1000,
        testSeconds: d.duration / 1000,
        cpuSeconds: note?.cpuSeconds ?? null,
        startedAt: note?.startedAt ?? null,
        endedAt: note?.endedAt ?? null,
        pid: note?.pid ?? null,
        ok: m.ok(),
      };
    });
    mkdirSync(path.dirname(TIMINGS_FILE), { recursive: true });
    writeFileSync(TIMINGS_FILE, JSON.stringify(rows, null, 1));
  }
}

interface FileNote {
  cpuSeconds: number;
  startedAt: number;
  endedAt: number;
  pid: number;
}

/** What each file of this run noted (tests/file-services.ts); the notes go once read. The global set-up runs in this process, so its run tag is ours. */
function fileNotes(): Map<string, FileNote> {
  const dir = fileCpuDir(runTagOf(process.pid));
  const out = new Map<string, FileNote>();
  let notes: string[] = [];
  try {
    notes = readdirSync(dir);
  } catch {
    return out; // no file of the run had services
  }
  for (const note of notes) {
    const { file, ...noted } = JSON.parse(readFileSync(path.join(dir, note), "utf8")) as FileNote & { file: string };
    const before = out.get(file);
    out.set(
      file,
      before
        ? {
            cpuSeconds: before.cpuSeconds + noted.cpuSeconds,
            startedAt: Math.min(before.startedAt, noted.startedAt),
            endedAt: Math.max(before.endedAt, noted.endedAt),
            pid: noted.pid,
          }
        : noted,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  return out;
}
