// What of a target spec besides `env` is secret (target-env.ts has env): the data of Kubernetes Secret objects in a
// kubernetes target's own `manifests`, and an aws-asg target's `userData` (a boot script, often with passwords).
// The API shows them redacted with the same marker as env values, and an edit that sends the marker back keeps
// the stored value (restoreManifestSecrets, restoreUserData).
import { type Document, isMap, parseAllDocuments, visit } from "yaml";

type Marker = string;

/** The fields of a Secret document whose values are hidden, each a map of key -> value. */
const SECRET_FIELDS = [["data"], ["stringData"], ["metadata", "annotations"]] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The documents, or null when any does not parse or uses an alias (then the manifests are hidden whole). */
function parseDocuments(text: string): Document.Parsed[] | null {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return null; // an empty stream
  for (const d of docs) {
    if (d.errors.length > 0) return null;
    let alias = false;
    visit(d, {
      Alias() {
        alias = true;
        return visit.BREAK;
      },
    });
    if (alias) return null;
  }
  return docs;
}

const isSecret = (doc: Document.Parsed) => isMap(doc.contents) && doc.get("kind") === "Secret";

function fieldOf(obj: Record<string, unknown>, path: readonly string[]): unknown {
  let at: unknown = obj;
  for (const p of path) at = isRecord(at) ? at[p] : undefined;
  return at;
}

function setField(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = obj;
  for (const p of path.slice(0, -1)) {
    if (!isRecord(at[p])) return;
    at = at[p] as Record<string, unknown>;
  }
  at[path[path.length - 1]!] = value;
}

/** Replaces a Secret document's contents (its comments dropped: they may quote a value) by `js`. */
function replaceContents(doc: Document.Parsed, js: unknown): void {
  doc.contents = doc.createNode(js) as typeof doc.contents;
  doc.commentBefore = null;
  doc.comment = null;
}

const joined = (docs: Document.Parsed[]) => docs.map((d) => d.toString()).join("");

/**
 * The manifests with every value of a Secret's data, stringData and annotations replaced by `marker` (the keys
 * stay, so a reader sees what is set). Manifests that do not parse, or use YAML aliases, are hidden whole.
 */
export function redactManifestSecrets(text: string, marker: Marker): string {
  const docs = parseDocuments(text);
  if (!docs) return marker;
  let changed = false;
  for (const doc of docs) {
    if (!isSecret(doc)) continue;
    const js = doc.toJS() as Record<string, unknown>;
    for (const path of SECRET_FIELDS) {
      const field = fieldOf(js, path);
      if (field === undefined) continue;
      setField(js, path, isRecord(field) ? Object.fromEntries(Object.keys(field).map((k) => [k, marker])) : marker);
    }
    replaceContents(doc, js);
    changed = true;
  }
  return changed ? joined(docs) : text;
}

/**
 * Edited manifests as they should be stored: a Secret value still showing `marker` keeps the value stored under the
 * same Secret name, field and key (dropped when there is none); manifests that are the marker whole keep the stored
 * manifests. Manifests without a marker come back unchanged.
 */
export function restoreManifestSecrets(edited: string, stored: unknown, marker: Marker): string | undefined {
  const before = typeof stored === "string" ? stored : undefined;
  if (edited === marker) return before;
  if (!edited.includes(marker)) return edited;
  const docs = parseDocuments(edited);
  if (!docs) return edited;
  const storedSecrets = new Map<string, Record<string, unknown>>();
  for (const d of (before && parseDocuments(before)) || []) {
    if (!isSecret(d)) continue;
    const js = d.toJS() as Record<string, unknown>;
    const name = fieldOf(js, ["metadata", "name"]);
    if (typeof name === "string") storedSecrets.set(name, js);
  }
  let changed = false;
  for (const doc of docs) {
    if (!isSecret(doc)) continue;
    const js = doc.toJS() as Record<string, unknown>;
    const name = fieldOf(js, ["metadata", "name"]);
    const old = typeof name === "string" ? storedSecrets.get(name) : undefined;
    let touched = false;
    for (const path of SECRET_FIELDS) {
      const field = fieldOf(js, path);
      const oldField = old ? fieldOf(old, path) : undefined;
      if (field === marker) {
        setField(js, path, oldField);
        touched = true;
      } else if (isRecord(field)) {
        for (const [k, v] of Object.entries(field)) {
          if (v !== marker) continue;
          touched = true;
          const kept = isRecord(oldField) ? oldField[k] : undefined;
          if (kept === undefined) delete field[k];
          else field[k] = kept;
        }
      }
    }
    if (touched) {
      replaceContents(doc, js);
      changed = true;
    }
  }
  return changed ? joined(docs) : edited;
}
