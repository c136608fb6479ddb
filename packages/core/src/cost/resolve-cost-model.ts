// A model document is either a whole model ({"kind": ...}) or a reference to a
// catalog entry ({"catalog": "name", "version"?: "...", ...fields to override}).
import { z } from "zod";
import { BUILTIN_PRICE_CATALOGS } from "./catalogs";
import { issuesFromZod, type CostParse } from "./cost-issues";
import { costModel, type CostModel } from "./cost-model";
import { findPriceCatalog, priceCatalogName, type PriceCatalogEntry } from "./price-catalog";

export interface ResolvedCostModel {
  model: CostModel;
  /** The catalog entry the model came from. */
  catalog?: { name: string; version: string };
}

const catalogReference = z.looseObject({ catalog: priceCatalogName, version: z.string().min(1).optional() });

/** Parses a model document (parsed JSON), resolving a catalog reference against `catalogs`. */
export function parseCostModel(
  json: unknown,
  catalogs: readonly PriceCatalogEntry[] = BUILTIN_PRICE_CATALOGS,
): CostParse<ResolvedCostModel> {
  if (!isObject(json) || !("catalog" in json)) {
    const r = costModel.safeParse(json);
    return r.success ? { ok: true, value: { model: r.data } } : { ok: false, issues: issuesFromZod(r.error) };
  }
  const ref = catalogReference.safeParse(json);
  if (!ref.success) return { ok: false, issues: issuesFromZod(ref.error) };
  const { catalog: name, version, ...overrides } = ref.data;
  const entry = findPriceCatalog(catalogs, name, version);
  if (!entry) {
    const versions = catalogs.filter((e) => e.name === name).map((e) => e.version);
    const message = versions.length
      ? `no version "${version}" of price catalog "${name}" (known: ${versions.join(", ")})`
      : `unknown price catalog "${name}" (known: ${[...new Set(catalogs.map((e) => e.name))].join(", ") || "none"})`;
    return { ok: false, issues: [{ path: versions.length ? "version" : "catalog", message }] };
  }
  if ("kind" in overrides && overrides.kind !== entry.model.kind) {
    return {
      ok: false,
      issues: [{ path: "kind", message: `price catalog "${name}" is a ${entry.model.kind} model; its kind cannot be overridden` }],
    };
  }
  // Fields given beside the reference replace the entry's (whole objects, not merged deeply).
  const r = costModel.safeParse({ ...entry.model, ...overrides });
  if (!r.success) return { ok: false, issues: issuesFromZod(r.error) };
  return { ok: true, value: { model: r.data, catalog: { name: entry.name, version: entry.version } } };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
