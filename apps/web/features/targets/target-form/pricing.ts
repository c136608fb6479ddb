// The pricing boxes of every kind's form as the target's `costModel` document (core cost/run-cost.ts
// costModelDocument) and back: a built-in price catalog by name, explicit prices of a serverful model (per
// node-hour) or a serverless one (per 1 M requests, per vCPU-second, per GiB-second), or a document the boxes
// cannot show (a catalog with overrides, fees, a custom model), kept as JSON text.
import { BUILTIN_PRICE_CATALOGS, findPriceCatalog } from "@opsbench/core";

export type PricingMode = "none" | "catalog" | "reserved" | "pay-per-use" | "document";

export interface PricingValues {
  mode: PricingMode;
  catalog: string;
  unit: string;
  nodeLabel: string;
  perNodeHour: string;
  feePerHour: string;
  perMillionRequests: string;
  perVcpuSecond: string;
  perGibSecond: string;
  vcpu: string;
  memoryGib: string;
  document: string;
}

export const NO_PRICING: PricingValues = {
  mode: "none",
  catalog: "",
  unit: "USD",
  nodeLabel: "",
  perNodeHour: "",
  feePerHour: "",
  perMillionRequests: "",
  perVcpuSecond: "",
  perGibSecond: "",
  vcpu: "",
  memoryGib: "",
  document: "",
};

/** The built-in catalogs a target may name, one per name (its newest version), in the catalog's order. */
export const CATALOG_CHOICES = [...new Set(BUILTIN_PRICE_CATALOGS.map((e) => e.name))].map((name) => {
  const e = findPriceCatalog(BUILTIN_PRICE_CATALOGS, name)!;
  return { name, label: `${name} (${e.model.kind}, ${e.model.unit}, ${e.version})`, description: e.description ?? e.source };
});

const HOUR = 3600;
const MILLION = 1_000_000;

/** A box's number, or the text itself when it is not one (the API then names the field). */
const num = (text: string): number | string => (Number.isFinite(Number(text.trim())) ? Number(text.trim()) : text);
/** A stored rate as a box shows it: rounded to 12 significant digits, so 0.1/3600*3600 reads "0.1". */
const box = (v: unknown, times = 1) => (typeof v === "number" ? String(Number((v * times).toPrecision(12))) : "");

/** The filled boxes of `entries` as model fields (value / per: a price per hour or per million becomes one per second or request). */
function filled(entries: Array<[field: string, text: string, per?: number]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, text, per = 1] of entries) {
    if (text.trim() === "") continue;
    const v = num(text);
    out[field] = typeof v === "number" ? v / per : v;
  }
  return out;
}

/** The `costModel` document the boxes stand for; undefined when the target is not priced. */
export function costModelOf(p: PricingValues): unknown {
  switch (p.mode) {
    case "none":
      return undefined;
    case "catalog":
      return { catalog: p.catalog };
    case "reserved":
      return {
        kind: "reserved",
        unit: p.unit.trim(),
        ...(p.nodeLabel.trim() ? { nodeLabel: p.nodeLabel.trim() } : {}),
        ...filled([
          ["pricePerNodeSecond", p.perNodeHour, HOUR],
          ["feePerSecond", p.feePerHour, HOUR],
        ]),
      };
    case "pay-per-use":
      return {
        kind: "pay-per-use",
        unit: p.unit.trim(),
        ...filled([
          ["pricePerRequest", p.perMillionRequests, MILLION],
          ["pricePerVcpuSecond", p.perVcpuSecond],
          ["pricePerGibSecond", p.perGibSecond],
          ["vcpu", p.vcpu],
          ["memoryGib", p.memoryGib],
        ]),
      };
    case "document":
      try {
        return JSON.parse(p.document);
      } catch {
        // Sent as text: the API names it ("costModel: ...") next to the box.
        return p.document;
      }
  }
}

const only = (o: Record<string, unknown>, keys: readonly string[]) => Object.keys(o).every((k) => keys.includes(k));

/** The boxes of a stored `costModel` document (editing a target): the mode that shows it whole. */
export function pricingOf(doc: unknown): PricingValues {
  if (doc === undefined || doc === null) return NO_PRICING;
  if (typeof doc === "object" && !Array.isArray(doc)) {
    const d = doc as Record<string, unknown>;
    if (only(d, ["catalog"]) && CATALOG_CHOICES.some((c) => c.name === d.catalog))
      return { ...NO_PRICING, mode: "catalog", catalog: String(d.catalog) };
    if (d.kind === "reserved" && typeof d.unit === "string" && only(d, ["kind", "unit", "nodeLabel", "pricePerNodeSecond", "feePerSecond"]))
      return {
        ...NO_PRICING,
        mode: "reserved",
        unit: d.unit,
        nodeLabel: typeof d.nodeLabel === "string" ? d.nodeLabel : "",
        perNodeHour: box(d.pricePerNodeSecond, HOUR),
        feePerHour: box(d.feePerSecond, HOUR),
      };
    if (
      d.kind === "pay-per-use" &&
      typeof d.unit === "string" &&
      (d.billing === undefined || d.billing === "request") &&
      only(d, ["kind", "unit", "billing", "pricePerRequest", "pricePerVcpuSecond", "pricePerGibSecond", "vcpu", "memoryGib"])
    )
      return {
        ...NO_PRICING,
        mode: "pay-per-use",
        unit: d.unit,
        perMillionRequests: box(d.pricePerRequest, MILLION),
        perVcpuSecond: box(d.pricePerVcpuSecond),
        perGibSecond: box(d.pricePerGibSecond),
        vcpu: box(d.vcpu),
        memoryGib: box(d.memoryGib),
      };
  }
  return { ...NO_PRICING, mode: "document", document: JSON.stringify(doc, null, 2) };
}

/** The target's pricing in a few words (the targets list's "Priced" column): the catalog, the model, or "not priced". */
export function describePricing(doc: unknown): string {
  const p = pricingOf(doc);
  switch (p.mode) {
    case "none":
      return "not priced";
    case "catalog":
      return `catalog ${p.catalog}`;
    case "reserved":
      return `${p.perNodeHour || "?"} ${p.unit} an hour per ${p.nodeLabel || "node"}${p.feePerHour ? ` + ${p.feePerHour} ${p.unit} an hour` : ""}`;
    case "pay-per-use":
      return [
        p.perMillionRequests && `${p.perMillionRequests} ${p.unit} per 1 M requests`,
        p.perVcpuSecond && `${p.perVcpuSecond} per vCPU-s`,
        p.perGibSecond && `${p.perGibSecond} per GiB-s`,
      ]
        .filter(Boolean)
        .join(", ");
    case "document": {
      const d = doc as { catalog?: unknown; kind?: unknown };
      return typeof d === "object" && d && typeof d.catalog === "string"
        ? `catalog ${d.catalog} (with overrides)`
        : `${typeof d === "object" && d && typeof d.kind === "string" ? d.kind : "a"} model (JSON)`;
    }
  }
}
