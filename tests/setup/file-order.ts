// The order files start in (vitest.config.ts `sequence.sequencer`). Integration and browser files share a few slots
// (one vitest group), so the order decides the suite's wall time: a long file that starts last runs on alone while
// the other slots sit idle. So:
//   1. the longest first (longest-processing-time scheduling), by the seconds each file took in a full run:
//      tests/setup/file-durations.json (committed, refreshed by `npm run test:durations` after a full run, so a fresh
//      clone in CI gets the same order); for a file not in it, vitest's cache of this checkout's last run of it;
//   2. a file in neither (a new one) counts as a long one, so it does not end up alone at the tail;
//   3. the files that need the machine to themselves (aloneFiles) last: each waits for the files already running to
//      end (tests/machine-share.ts), and at the tail those are the shortest. First, they raced the files that start
//      beside them: in a fresh clone, kubernetes-run took the machine a moment before placement-comparison asked for
//      it alone, which then waited its 148 s with a third file queued behind it: two slots idle for two and a half minutes.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

export const DURATIONS_FILE = path.resolve(import.meta.dirname, "file-durations.json");
const root = path.resolve(import.meta.dirname, "../..");

/** Seconds per repository-relative file path, from the committed file (empty when it is missing). */
export function committedDurations(): Record<string, number> {
  return existsSync(DURATIONS_FILE) ? (JSON.parse(readFileSync(DURATIONS_FILE, "utf8")) as Record<string, number>) : {};
}

export class FileOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const committed = committedDurations();
    const known = Object.values(committed).sort((a, b) => a - b);
    // A new file: as long as the 90th percentile of the known ones.
    const unknownSeconds = known.length ? known[Math.floor(known.length * 0.9)]! : 0;
    const alone = new Set(files.flatMap((f) => (f.project.getProvidedContext() as { aloneFiles?: string[] }).aloneFiles ?? []));
    const seconds = (f: TestSpecification) => {
      const file = path.relative(root, f.moduleId);
      if (committed[file] !== undefined) return committed[file];
      const cached = this.ctx.cache.getFileTestResults(`${f.project.name}:${file}`);
      return cached && cached.duration > 0 ? cached.duration / 1000 : unknownSeconds;
    };
    const rank = (f: TestSpecification) => (alone.has(path.relative(root, f.moduleId)) ? -1 : seconds(f));
    const sorted = [...files].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(b) - rank(a),
    );
    return sorted;
  }
}
