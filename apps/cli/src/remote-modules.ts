// Remote modules (issue 37): `import { textSummary } from "https://jslib.k6.io/k6-summary/0.0.2/index.js"` works in
// a team's k6 but not in opsbench's sandbox, which has no network. The CLI has the network: at upload it fetches
// every https module the script's files import (and the modules those import, relative or absolute), puts each in
// the bundle under _remote/<host>/<path>, rewrites the import to that file, and records each URL with the sha256 of
// what it fetched in the workload's spec (remoteModules). The runner then resolves the import from the bundle, like
// any local module; nothing is fetched at run time. A module that cannot be fetched stops the upload, naming its URL.
import { createHash } from "node:crypto";
import path from "node:path";
import { bundlePath, REMOTE_MODULES_FOLDER, type RemoteModule } from "@opsbench/core";
import type { ScriptUpload } from "./script-upload";
import { UsageError } from "./usage-error";

/** import/export ... from "URL", import "URL", import("URL"), require("URL"): a module named by an absolute http(s) URL. */
const REMOTE_REFERENCE = /(\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'`])(https?:\/\/[^"'`\s]+)\2/g;
/** Inside a fetched module: its relative and root-relative imports, resolved against its URL. */
const MODULE_REFERENCE = /(\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'`])((?:\.{1,2})?\/[^"'`\s]+)\2/g;

const MAX_MODULE_BYTES = 5_000_000;
const FETCH_TIMEOUT_MS = 30_000;

export interface RemoteModuleOptions {
  /**
   * host:port pairs whose modules may be fetched over plain http (OPSBENCH_HTTP_MODULE_HOSTS): a mirror on a private
   * network, or a test's loopback server. Every other module must be https.
   */
  httpHosts?: readonly string[];
  fetch?: typeof fetch;
}

/** The upload with its remote modules bundled and its imports rewritten, and the modules' record. */
export async function bundleRemoteModules(
  upload: ScriptUpload,
  opts: RemoteModuleOptions = {},
): Promise<{ upload: ScriptUpload; remoteModules: RemoteModule[] }> {
  if (upload.entry.endsWith(".tar")) return { upload, remoteModules: [] }; // a k6 archive already holds its modules
  const fetched = new Map<string, { path: string; text: string; sha256: string }>();
  const doFetch = opts.fetch ?? fetch;

  const fetchModule = async (url: string): Promise<string> => {
    const known = fetched.get(url);
    if (known) return known.path;
    const u = new URL(url);
    if (u.protocol !== "https:" && !(u.protocol === "http:" && (opts.httpHosts ?? []).includes(u.host)))
      throw new UsageError(
        `--script: cannot bundle ${url}: only https modules are fetched (plain http only for OPSBENCH_HTTP_MODULE_HOSTS)`,
      );
    const at = modulePath(u);
    let text: string;
    try {
      const res = await doFetch(url, { redirect: "follow", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`it answered ${res.status}`);
      const body = Buffer.from(await res.arrayBuffer());
      if (body.length > MAX_MODULE_BYTES) throw new Error(`it is ${body.length} bytes, more than ${MAX_MODULE_BYTES}`);
      text = body.toString("utf8");
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      throw new UsageError(
        `--script: cannot fetch the module ${url}: ${e.cause?.code ?? e.cause?.message ?? e.message}; nothing was uploaded`,
      );
    }
    const sha256 = createHash("sha256").update(text).digest("hex");
    fetched.set(url, { path: at, text, sha256 });
    // Its own imports, absolute or relative to its URL (read from the text as fetched), each pointed at its copy.
    let rewritten = await rewriteRemote(text, at, fetchModule);
    const local = new Map<string, string>();
    for (const m of text.matchAll(MODULE_REFERENCE)) local.set(m[3]!, await fetchModule(new URL(m[3]!, url).href));
    rewritten = rewritten.replace(MODULE_REFERENCE, (whole, lead: string, q: string, ref: string) => {
      const to = local.get(ref);
      return to ? `${lead}${q}${relativeSpecifier(at, to)}${q}` : whole;
    });
    fetched.get(url)!.text = rewritten;
    return at;
  };

  const source = await rewriteRemote(upload.source, upload.entry, fetchModule);
  const files: Record<string, string> = {};
  for (const [name, b64] of Object.entries(upload.files)) {
    if (!/\.(m?js|cjs|ts)$/.test(name)) {
      files[name] = b64;
      continue;
    }
    const text = Buffer.from(b64, "base64").toString("utf8");
    const out = await rewriteRemote(text, name, fetchModule);
    files[name] = out === text ? b64 : Buffer.from(out).toString("base64");
  }
  const remoteModules: RemoteModule[] = [];
  for (const [url, m] of fetched) {
    if (files[m.path] !== undefined)
      throw new UsageError(`--script: the module ${url} would go to ${m.path}, a file the script already has`);
    files[m.path] = Buffer.from(m.text).toString("base64");
    remoteModules.push({ url, sha256: m.sha256, path: m.path });
  }
  return { upload: { ...upload, source, files }, remoteModules };
}

/** Rewrites the absolute module URLs a file (at `from` in the bundle) imports to their bundle paths, fetching each. */
async function rewriteRemote(text: string, from: string, fetchModule: (url: string) => Promise<string>): Promise<string> {
  const refs = [...text.matchAll(REMOTE_REFERENCE)];
  if (refs.length === 0) return text;
  const targets = new Map<string, string>();
  for (const m of refs) targets.set(m[3]!, await fetchModule(m[3]!));
  return text.replace(
    REMOTE_REFERENCE,
    (_whole, lead: string, q: string, url: string) => `${lead}${q}${relativeSpecifier(from, targets.get(url)!)}${q}`,
  );
}

/** "./x" or "../x": the specifier that names `to` from a module at `from` (both bundle paths). */
function relativeSpecifier(from: string, to: string): string {
  const rel = path.posix.relative(path.posix.dirname(from), to);
  return rel.startsWith("../") ? rel : `./${rel}`;
}

/** Where a module's URL goes in the bundle: _remote/<host>/<its path>, each part made a bundle path's. */
export function modulePath(u: URL): string {
  const safe = (s: string) =>
    s
      .replace(/[^A-Za-z0-9._@+-]/g, "_")
      .replace(/^[.+-]/, "_")
      .slice(0, 100) || "_";
  const parts = decodeURIComponent(u.pathname).split("/").filter(Boolean).map(safe);
  if (parts.length === 0) parts.push("index.js");
  if (u.search) {
    const last = parts.pop()!;
    const tag = createHash("sha256").update(u.search).digest("hex").slice(0, 8);
    parts.push(last.endsWith(".js") ? `${last.slice(0, -3)}_${tag}.js` : `${last}_${tag}.js`);
  }
  const p = [REMOTE_MODULES_FOLDER, safe(u.host), ...parts].join("/");
  const ok = bundlePath.safeParse(p);
  if (!ok.success)
    throw new UsageError(`--script: cannot bundle ${u.href}: "${p}" ${ok.error.issues[0]?.message} (at most 8 folders deep)`);
  return p;
}

/** OPSBENCH_HTTP_MODULE_HOSTS: comma-separated host:port pairs. */
export const httpModuleHosts = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
