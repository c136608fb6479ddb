// A k6 project as one upload (issue 24): the entry script plus its local modules and data files
// (`import ... from "./lib.js"`, `open("./users.csv")`), or a `k6 archive` tar. The runner writes the files into
// the run's folder, the entry where its imports and open() calls expect them, and runs k6 on the entry (a .tar
// entry is a k6 archive: `k6 run archive.tar`). Checked like any script: k6 inspect, sandboxed, before saving.
import { z } from "zod";

/**
 * What a bundle's files (data files, modules) may weigh together, decoded, by default. The instance admin sets
 * another with OPSBENCH_MAX_SCRIPT_FILES_BYTES (the web app checks it when a workload is saved: bundleOverCap),
 * up to BUNDLE_BYTES_CEILING, the most any request may carry whatever the setting.
 */
export const MAX_BUNDLE_BYTES = 1_000_000;
export const BUNDLE_BYTES_CEILING = 20_000_000;
/** How many files a bundle may hold besides its entry's source. */
export const MAX_BUNDLE_FILES = 200;

const segment = /^[A-Za-z0-9_@][A-Za-z0-9._@+-]{0,99}$/;

/** A path inside the bundle: relative, "/"-separated, no "..", "." or empty part, at most 8 deep. */
export const bundlePath = z
  .string()
  .max(400)
  .refine((p) => {
    const parts = p.split("/");
    return parts.length <= 8 && parts.every((s) => segment.test(s) && s !== "." && s !== "..");
  }, "a relative path of letters, digits and ._@+- (no '..', no leading '/')");

/** Bytes of a base64 text once decoded (without decoding it). */
export const base64Bytes = (b64: string): number => Math.floor((b64.length * 3) / 4) - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0);

export const scriptBundleFields = {
  /** The entry's path in the bundle (default script.js); a `.tar` entry is a k6 archive held in `files`. */
  entry: bundlePath.optional(),
  /** The other files, base64, by path relative to the bundle's root (the entry's imports and open() calls resolve there). */
  files: z
    .record(bundlePath, z.base64())
    .optional()
    .superRefine((files, ctx) => {
      if (!files) return;
      const names = Object.keys(files);
      if (names.length > MAX_BUNDLE_FILES)
        ctx.addIssue({ code: "custom", message: `a script may bring at most ${MAX_BUNDLE_FILES} files, not ${names.length}` });
      const bytes = Object.values(files).reduce((sum, b64) => sum + base64Bytes(b64), 0);
      if (bytes > BUNDLE_BYTES_CEILING)
        ctx.addIssue({
          code: "custom",
          message: `a script's files may weigh at most ${BUNDLE_BYTES_CEILING} bytes together, not ${bytes}`,
        });
      const folders = new Set(
        names.flatMap((n) =>
          n
            .split("/")
            .slice(0, -1)
            .map((_, i, parts) => parts.slice(0, i + 1).join("/")),
        ),
      );
      for (const n of names) if (folders.has(n)) ctx.addIssue({ code: "custom", path: [n], message: `"${n}" is both a file and a folder` });
    }),
};

/**
 * The instance's cap on a bundle's files, broken: the message names the largest file and its size, the files'
 * total and the cap (and the setting that raises it); null within it.
 */
export function bundleOverCap(files: Record<string, string> | undefined, cap: number): string | null {
  if (!files) return null;
  const sizes = Object.entries(files).map(([name, b64]) => ({ name, bytes: base64Bytes(b64) }));
  const total = sizes.reduce((sum, f) => sum + f.bytes, 0);
  if (total <= cap) return null;
  const largest = sizes.sort((a, b) => b.bytes - a.bytes)[0]!;
  const n = (x: number) => x.toLocaleString("en-US");
  return (
    `"${largest.name}" (${n(largest.bytes)} bytes) takes the script's files to ${n(total)} bytes, over this instance's cap of ` +
    `${n(cap)} bytes (OPSBENCH_MAX_SCRIPT_FILES_BYTES, set by its admin)`
  );
}

/**
 * An https module the CLI fetched and bundled (issue 37: the sandbox has no network): where it came from, the
 * sha256 of what was fetched (hex), and its path in the bundle, to which the script's import was rewritten.
 */
export const remoteModuleSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2000),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in hex"),
  path: bundlePath,
});
export type RemoteModule = z.infer<typeof remoteModuleSchema>;
export const REMOTE_MODULES_FOLDER = "_remote";

/** What the runner needs of a script besides its source: where the entry goes and the files beside it. */
export interface ScriptBundle {
  entry?: string | undefined;
  files?: Record<string, string> | undefined;
}

export const DEFAULT_SCRIPT_ENTRY = "script.js";

/** The entry's path; whether it is a k6 archive (then held in files, and the source is only its main script, shown). */
export function bundleEntry(b: ScriptBundle): { entry: string; archive: boolean } {
  const entry = b.entry ?? DEFAULT_SCRIPT_ENTRY;
  return { entry, archive: entry.endsWith(".tar") };
}

/** A bundle's files, checked, for a caller outside a workload spec (the runner's requests). */
export const scriptBundleSchema = z.object(scriptBundleFields).strict();

/** The bundle of a workload for the runner: a script's entry and files (absent keys when it has none). */
export function scriptBundleOf(spec: { kind: string } & ScriptBundle): ScriptBundle {
  if (spec.kind !== "script") return {};
  return { ...(spec.entry ? { entry: spec.entry } : {}), ...(spec.files ? { files: spec.files } : {}) };
}
