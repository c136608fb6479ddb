// Every kind of cost model, the usage each one prices, and the one entry point
// that prices a usage under a model.
import { z } from "zod";
import { issuesFromZod, type CostParse } from "./cost-issues";
import type { CostResult } from "./cost-result";
import { customModel, customUsageFor, priceCustom, type CustomUsage } from "./custom-cost";
import { payPerUseModel, payPerUseUsageFor, pricePayPerUse, type PayPerUseUsage } from "./pay-per-use-cost";
import { priceReserved, reservedModel, reservedUsageFor, type ReservedUsage } from "./reserved-cost";

export const costModel = z.discriminatedUnion("kind", [reservedModel, payPerUseModel, customModel]);
export type CostModel = z.infer<typeof costModel>;
export type CostModelInput = z.input<typeof costModel>;

export type CostUsage = ReservedUsage | PayPerUseUsage | CustomUsage;

export function usageSchemaFor(model: CostModel) {
  switch (model.kind) {
    case "reserved":
      return reservedUsageFor(model);
    case "pay-per-use":
      return payPerUseUsageFor(model);
    case "custom":
      return customUsageFor(model);
  }
}

/** Checks a usage document (parsed JSON) against what the model needs. */
export function parseCostUsage(model: CostModel, json: unknown): CostParse<CostUsage> {
  const r = usageSchemaFor(model).safeParse(json);
  return r.success ? { ok: true, value: r.data } : { ok: false, issues: issuesFromZod(r.error) };
}

/** Prices a usage under a model; the usage must have been parsed for that model (parseCostUsage). */
export function priceUsage(model: CostModel, usage: CostUsage): CostResult {
  switch (model.kind) {
    case "reserved":
      return priceReserved(model, usage as ReservedUsage);
    case "pay-per-use":
      return pricePayPerUse(model, usage as PayPerUseUsage);
    case "custom":
      return priceCustom(model, usage as CustomUsage);
  }
}
