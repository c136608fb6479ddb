// The cloud kinds' boxes as a spec: every value as text keyed by its dotted spec path ("resources.cpuRequest"),
// empty boxes left out so that the schema's defaults apply. Keys starting with "@" are the form's own choices
// (e.g. image or manifests) and never sent.
import { z } from "zod";

export type SpecValues = Record<string, string>;

/** How a box's text becomes a spec value. */
export type FieldType = "int" | "number" | "text" | "bool" | "list" | "map";

function convert(type: FieldType, text: string): unknown {
  const t = text.trim();
  switch (type) {
    case "int":
    case "number":
      // NaN is sent as null: the API then names the field.
      return Number(t);
    case "bool":
      return t === "true";
    case "list":
      return t.split(/[\s,]+/).filter(Boolean);
    case "map":
      // "disktype=ssd, zone=a" -> { disktype: "ssd", zone: "a" }
      return Object.fromEntries(
        t
          .split(/[\n,]+/)
          .map((p) => p.trim())
          .filter(Boolean)
          .map((p) => {
            const at = p.indexOf("=");
            return at < 0 ? [p, ""] : [p.slice(0, at).trim(), p.slice(at + 1).trim()];
          }),
      );
    default:
      return text.includes("\n") ? text : t;
  }
}

/** The spec of the given fields: each filled box converted and set at its path. */
export function specFromValues(values: SpecValues, fields: Record<string, FieldType>): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (const [path, type] of Object.entries(fields)) {
    const text = values[path] ?? "";
    if (text.trim() === "") continue;
    const keys = path.split(".");
    let at = spec;
    for (const k of keys.slice(0, -1)) {
      at[k] ??= {};
      at = at[k] as Record<string, unknown>;
    }
    at[keys[keys.length - 1]!] = convert(type, text);
  }
  return spec;
}

/** The fields whose paths start with one of the prefixes (a mode's fields). */
export const fieldsUnder = (fields: Record<string, FieldType>, ...prefixes: string[]) =>
  Object.fromEntries(Object.entries(fields).filter(([p]) => prefixes.some((x) => p === x || p.startsWith(`${x}.`))));

/** The schema at a dotted path (optional wrappers unwrapped on the way), or undefined. */
function schemaAt(schema: z.ZodType, path: string): z.ZodType | undefined {
  let at: z.ZodType | undefined = schema;
  for (const key of path.split(".")) {
    while (at instanceof z.ZodOptional) at = at.unwrap() as z.ZodType;
    at = at instanceof z.ZodObject ? (at.shape[key] as z.ZodType | undefined) : undefined;
  }
  return at;
}

/** The schema's default at a path, as text for a placeholder ("t3.micro", "70"); undefined when it has none. */
export function schemaDefault(schema: z.ZodType, path: string): string | undefined {
  const at = schemaAt(schema, path);
  if (!(at instanceof z.ZodDefault)) return undefined;
  const value: unknown = at.def.defaultValue;
  return typeof value === "object" ? undefined : String(value);
}

/** The bounds of a number at a path ({min: "-1", max: "100000"}), for a number box's min and max. */
export function schemaBounds(schema: z.ZodType, path: string): { min?: string; max?: string } {
  let at = schemaAt(schema, path);
  while (at instanceof z.ZodOptional || at instanceof z.ZodDefault) at = at.unwrap() as z.ZodType;
  if (!(at instanceof z.ZodNumber)) return {};
  const text = (n: number | null) => (n === null || !Number.isFinite(n) ? undefined : String(n));
  return { min: text(at.minValue), max: text(at.maxValue) };
}

/** A box's text of a stored value: the inverse of `convert`. */
function boxText(type: FieldType, value: unknown): string {
  switch (type) {
    case "bool":
      // A choice of true/false (gcp-cloud-run's cpuThrottling) shows false too; a check box is unchecked by it.
      return typeof value === "boolean" ? String(value) : "";
    case "list":
      return Array.isArray(value) ? value.join(", ") : "";
    case "map":
      return value && typeof value === "object"
        ? Object.entries(value as Record<string, unknown>)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(", ")
        : "";
    default:
      return value === undefined || value === null || typeof value === "object" ? "" : String(value);
  }
}

/** The boxes of a stored spec (editing it): each field's value at its path as text; absent ones empty. */
export function valuesFromSpec(spec: unknown, fields: Record<string, FieldType>): SpecValues {
  const values: SpecValues = {};
  for (const [path, type] of Object.entries(fields)) {
    let at: unknown = spec;
    for (const k of path.split(".")) at = at && typeof at === "object" ? (at as Record<string, unknown>)[k] : undefined;
    const t = boxText(type, at);
    if (t !== "") values[path] = t;
  }
  return values;
}

/** What of a stored spec the boxes do not cover (env, database, costModel...): kept as it is when it is edited. */
export function uncoveredOf(spec: unknown, fields: Record<string, FieldType>, covered: readonly string[] = []): Record<string, unknown> {
  if (!spec || typeof spec !== "object") return {};
  const own = new Set([...Object.keys(fields).map((p) => p.split(".")[0]!), ...covered]);
  return Object.fromEntries(Object.entries(spec).filter(([k]) => !own.has(k)));
}
