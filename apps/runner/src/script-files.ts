// A script's files on disk for k6 (issue 24): the entry and its local modules and data files under <dir>/script/,
// where the entry's imports and open() calls resolve; a k6 archive is one .tar there. After the run, what the
// script's handleSummary() wrote into the run's folder is read back as the run's artifacts, within caps.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bundleEntry, type ScriptBundle } from "@opsbench/core";

export const SCRIPT_FOLDER = "script";

/** Writes the script's files into dir; returns the path to hand k6, relative to dir (e.g. script/test.js). */
export function writeScriptFiles(dir: string, source: string, bundle: ScriptBundle = {}): string {
  const root = path.join(dir, SCRIPT_FOLDER);
  mkdirSync(root, { recursive: true });
  const place = (name: string) => {
    const file = path.resolve(root, name);
    // bundlePath (core) refuses ".." already; this keeps any caller that skipped it inside the folder too.
    if (!file.startsWith(`${root}${path.sep}`)) throw new Error(`the script's file "${name}" is outside its folder`);
    mkdirSync(path.dirname(file), { recursive: true });
    return file;
  };
  for (const [name, b64] of Object.entries(bundle.files ?? {})) writeFileSync(place(name), Buffer.from(b64, "base64"));
  const { entry, archive } = bundleEntry(bundle);
  if (!archive) writeFileSync(place(entry), source);
  return `${SCRIPT_FOLDER}/${entry}`;
}

/** What a run keeps of the files its script's handleSummary() writes: per file, all together, and how many. */
export const ARTIFACT_LIMITS = { fileBytes: 1 << 20, totalBytes: 2 << 20, files: 20 };

export interface CollectedArtifacts {
  artifacts: Array<{ name: string; size: number; base64: string }>;
  /** Files left out, and why (over a cap). */
  dropped: string[];
}

const K6_OWN_FILES = new Set(["k6-summary.json", "k6-samples.json", "k6-config.json"]);

/** The files in dir that are not the script's nor in `before` (what was there before k6 started): handleSummary()'s. */
export function collectArtifacts(dir: string, before: ReadonlySet<string>): CollectedArtifacts {
  const found: string[] = [];
  const walk = (rel: string, depth: number) => {
    const abs = path.join(dir, rel);
    if (!existsSync(abs) || depth > 8) return;
    for (const name of readdirSync(abs).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      // The script's own folder, what was there before, k6's files (summary export, raw samples) and dot-files (HOME).
      if (child === SCRIPT_FOLDER || before.has(child) || K6_OWN_FILES.has(child) || name.startsWith(".")) continue;
      const st = lstatSync(path.join(dir, child));
      if (st.isDirectory()) walk(child, depth + 1);
      else if (st.isFile()) found.push(child);
    }
  };
  walk("", 0);
  const out: CollectedArtifacts = { artifacts: [], dropped: [] };
  let total = 0;
  for (const name of found) {
    const size = lstatSync(path.join(dir, name)).size;
    if (out.artifacts.length >= ARTIFACT_LIMITS.files) out.dropped.push(`${name} (more than ${ARTIFACT_LIMITS.files} files)`);
    else if (size > ARTIFACT_LIMITS.fileBytes) out.dropped.push(`${name} (${size} bytes, more than ${ARTIFACT_LIMITS.fileBytes} a file)`);
    else if (total + size > ARTIFACT_LIMITS.totalBytes) out.dropped.push(`${name} (over ${ARTIFACT_LIMITS.totalBytes} bytes in all)`);
    else {
      total += size;
      out.artifacts.push({ name, size, base64: readFileSync(path.join(dir, name)).toString("base64") });
    }
  }
  return out;
}

/** Every path under dir now (files and folders, relative): what is not the script's output. */
export function listedPaths(dir: string): Set<string> {
  const seen = new Set<string>();
  const walk = (rel: string, depth: number) => {
    const abs = path.join(dir, rel);
    if (!existsSync(abs) || depth > 8) return;
    for (const name of readdirSync(abs)) {
      const child = rel ? `${rel}/${name}` : name;
      seen.add(child);
      if (lstatSync(path.join(dir, child)).isDirectory()) walk(child, depth + 1);
    }
  };
  walk("", 0);
  return seen;
}
