// `opsbench run --script PATH`: a k6 project from the team's repository as one workload (issue 24). PATH is
//   - a script: it and the local files it names with literal paths (`import ... from "./lib.js"`, `open("./users.csv")`,
//     `require("./x.js")`), followed from file to file;
//   - a folder: every file in it (not node_modules, .git or dot-files), the entry by --entry or the first of
//     script.js, index.js, main.js, test.js;
//   - a `k6 archive` tar: uploaded as it is (k6 runs it), its main script shown as the workload's source.
// The server checks the result like any saved workload (k6 inspect in the sandbox, the workspace's limits).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { BUNDLE_BYTES_CEILING, bundlePath, MAX_BUNDLE_FILES } from "@opsbench/core";
import { UsageError } from "./usage-error";

export interface ScriptUpload {
  source: string;
  entry: string;
  files: Record<string, string>;
}

const ENTRY_NAMES = ["script.js", "index.js", "main.js", "test.js"];
const SKIPPED = new Set(["node_modules", ".git"]);
/** import/export ... from "x", import "x", require("x"), open("x"): the literal local paths a script names. */
const REFERENCE = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bopen\s*\(\s*)(["'`])(\.{1,2}\/[^"'`\n]+)\1/g;

export function readScriptUpload(target: string, entryName?: string): ScriptUpload {
  if (!existsSync(target)) throw new UsageError(`--script: ${target} does not exist`);
  const st = statSync(target);
  const upload = st.isDirectory()
    ? folderUpload(target, entryName)
    : target.endsWith(".tar")
      ? archiveUpload(target)
      : scriptUpload(target);
  checkSize(upload, target);
  return upload;
}

function checkSize(u: ScriptUpload, target: string) {
  const names = Object.keys(u.files);
  if (names.length > MAX_BUNDLE_FILES) throw new UsageError(`--script ${target}: ${names.length} files, at most ${MAX_BUNDLE_FILES}`);
  const bytes = Object.values(u.files).reduce((sum, b64) => sum + Buffer.from(b64, "base64").length, 0);
  // The server holds them to its admin's cap (OPSBENCH_MAX_SCRIPT_FILES_BYTES, 1,000,000 by default) and names the
  // file that breaks it; here only what no server takes.
  if (bytes > BUNDLE_BYTES_CEILING)
    throw new UsageError(`--script ${target}: its files weigh ${bytes} bytes, more than any server takes (${BUNDLE_BYTES_CEILING})`);
  for (const name of [u.entry, ...names]) {
    const ok = bundlePath.safeParse(name);
    if (!ok.success) throw new UsageError(`--script ${target}: cannot upload "${name}": ${ok.error.issues[0]?.message}`);
  }
}

/** A script and the local files it names, followed from file to file; paths relative to their common folder. */
function scriptUpload(file: string): ScriptUpload {
  const entryAbs = path.resolve(file);
  const found = new Set<string>([entryAbs]);
  const queue = [entryAbs];
  while (queue.length) {
    const current = queue.shift()!;
    if (!/\.(m?js|cjs|ts)$/.test(current)) continue; // data files name nothing
    const text = readFileSync(current, "utf8");
    for (const m of text.matchAll(REFERENCE)) {
      const ref = m[2]!;
      const isOpen = m[0].startsWith("open");
      // open() in a module: k6 has resolved it against the module and against the entry over its versions; take either.
      const candidates = [path.resolve(path.dirname(current), ref), ...(isOpen ? [path.resolve(path.dirname(entryAbs), ref)] : [])];
      const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
      if (!hit) throw new UsageError(`--script: ${path.relative(process.cwd(), current)} names "${ref}", which is not a file here`);
      if (!found.has(hit)) {
        found.add(hit);
        queue.push(hit);
      }
    }
  }
  const root = commonFolder([...found]);
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join("/");
  const files: Record<string, string> = {};
  for (const abs of found) if (abs !== entryAbs) files[rel(abs)] = readFileSync(abs).toString("base64");
  return { source: readFileSync(entryAbs, "utf8"), entry: rel(entryAbs), files };
}

function commonFolder(files: string[]): string {
  let root = path.dirname(files[0]!);
  while (!files.every((f) => f.startsWith(`${root}${path.sep}`))) root = path.dirname(root);
  return root;
}

function folderUpload(dir: string, entryName: string | undefined): ScriptUpload {
  const files: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      if (SKIPPED.has(name) || name.startsWith(".")) continue;
      const child = rel ? `${rel}/${name}` : name;
      const st = statSync(path.join(dir, child));
      if (st.isDirectory()) walk(child);
      else if (st.isFile()) files[child] = readFileSync(path.join(dir, child)).toString("base64");
      if (Object.keys(files).length > MAX_BUNDLE_FILES) throw new UsageError(`--script ${dir}: more than ${MAX_BUNDLE_FILES} files`);
    }
  };
  walk("");
  const entry = entryName ?? ENTRY_NAMES.find((n) => n in files);
  if (!entry || !(entry in files))
    throw new UsageError(
      entryName
        ? `--entry: ${dir} has no file "${entryName}"`
        : `--script ${dir}: no ${ENTRY_NAMES.join(", ")} in it; name the entry with --entry FILE`,
    );
  const source = Buffer.from(files[entry]!, "base64").toString("utf8");
  delete files[entry];
  return { source, entry, files };
}

/** A `k6 archive` tar: k6 runs it as it is; its "data" member is the main script, shown as the workload's source. */
function archiveUpload(file: string): ScriptUpload {
  const tar = readFileSync(file);
  const main = tarMember(tar, "data");
  if (main === null || tarMember(tar, "metadata.json") === null)
    throw new UsageError(`--script ${file}: not a k6 archive (no metadata.json and data in it); make one with \`k6 archive\``);
  return { source: main.toString("utf8") || "// k6 archive", entry: "archive.tar", files: { "archive.tar": tar.toString("base64") } };
}

/** One regular member of a ustar archive, by name; null when absent. */
export function tarMember(tar: Buffer, wanted: string): Buffer | null {
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return null;
    const field = (from: number, len: number) =>
      header
        .subarray(from, from + len)
        .toString("utf8")
        .replace(/\0.*$/s, "");
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1);
    if (name === wanted && (type === "0" || type === "")) return tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return null;
}

/**
 * The workload a script is saved as when --workload is not given (issue 37): the entry's path in its git repository
 * (the nearest folder above it holding .git; without one, relative to the current folder), made a name: lower-case,
 * "/" as ".", anything else outside [a-z0-9._-] as "-". `tests/api/smoke.js` is `tests.api.smoke.js`, whatever it
 * imports, and `tests/web/smoke.js` another workload. A path longer than a name keeps its end and a hash of the whole.
 */
export function workloadNameFor(upload: ScriptUpload, target: string): string {
  const entryAbs = upload.entry === "archive.tar" ? path.resolve(target) : entryPathOf(upload, target);
  const root = gitRoot(path.dirname(entryAbs)) ?? process.cwd();
  const rel = path.relative(root, entryAbs);
  const repoPath = (rel.startsWith("..") || path.isAbsolute(rel) ? path.basename(entryAbs) : rel).split(path.sep).join("/");
  return nameOfPath(repoPath);
}

/** The name a repository path gives (workloadNameFor). */
export function nameOfPath(repoPath: string): string {
  const name = repoPath
    .toLowerCase()
    .replace(/\//g, ".")
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "");
  if (name.length <= 64) return name || "script";
  const hash = createHash("sha256").update(repoPath).digest("hex").slice(0, 8);
  return `${name.slice(-(64 - 9)).replace(/^[^a-z0-9]+/, "")}-${hash}`;
}

/** The name the CLI gave before issue 37 ("script-" and the entry's path in the upload): found once and renamed. */
export function legacyWorkloadName(upload: ScriptUpload, target: string): string {
  const base = upload.entry === "archive.tar" ? path.basename(target) : upload.entry;
  return `script-${base.toLowerCase().replace(/[^a-z0-9._-]+/g, "-")}`.slice(0, 64);
}

/** The entry's absolute path: the script itself, or the entry inside the folder. */
function entryPathOf(upload: ScriptUpload, target: string): string {
  return statSync(target).isDirectory() ? path.resolve(target, upload.entry) : path.resolve(target);
}

/** The nearest folder at or above `dir` with a .git (a folder, or a worktree's file). */
export function gitRoot(dir: string): string | null {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, ".git"))) return d;
    if (path.dirname(d) === d) return null;
  }
}
