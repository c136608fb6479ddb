// A model for anything the other kinds do not describe: priced line items, each
// a quantity from the usage (a named one, or requests, loggingGib, egressGib,
// durationSeconds) times a price, less a free allowance.
import { z } from "zod";
import { checkRequestCounts, commonUsageFields } from "./usage-fields";
import { costResult, costLine, type CostResult } from "./cost-result";

export const customItem = z
  .object({
    label: z.string().min(1).max(80),
    /** Name of the usage quantity: "requests", "loggingGib", "egressGib", "durationSeconds" or a key of usage.quantities. */
    quantity: z.string().min(1).max(64),
    /** What one of the quantity is called in the output ("GiB", "hour"). */
    quantityUnit: z.string().min(1).max(32).optional(),
    price: z.number().min(0, "must be >= 0"),
    free: z.number().min(0, "must be >= 0").default(0),
  })
  .strict();

export const customModel = z
  .object({
    kind: z.literal("custom"),
    unit: z.string().min(1).max(32),
    description: z.string().max(2000).optional(),
    items: z.array(customItem).min(1, "needs at least one item"),
  })
  .strict();
export type CustomModel = z.infer<typeof customModel>;

const BUILT_IN_QUANTITIES = ["requests", "loggingGib", "egressGib", "durationSeconds"] as const;

export const customUsage = z
  .object({
    ...commonUsageFields,
    // Not defaulted to 0 here: an item priced per GiB must not be silently free.
    loggingGib: z.number().min(0, "must be >= 0").optional(),
    egressGib: z.number().min(0, "must be >= 0").optional(),
    durationSeconds: z.number().min(0, "must be >= 0").optional(),
    quantities: z.record(z.string(), z.number().min(0, "must be >= 0")).default({}),
  })
  .strict();
export type CustomUsage = z.infer<typeof customUsage>;

export function customUsageFor(model: CustomModel) {
  return customUsage.superRefine((u, ctx) => {
    checkRequestCounts(u, ctx);
    for (const item of model.items) {
      if (quantityOf(u, item.quantity) === undefined) {
        const where = (BUILT_IN_QUANTITIES as readonly string[]).includes(item.quantity) ? [item.quantity] : ["quantities", item.quantity];
        ctx.addIssue({
          code: "custom",
          path: where,
          message: `is needed: the model's item "${item.label}" is priced per ${item.quantity}`,
        });
      }
    }
  });
}

function quantityOf(u: CustomUsage, name: string): number | undefined {
  if (name in u.quantities) return u.quantities[name];
  if (name === "requests") return u.requests;
  if (name === "durationSeconds") return u.durationSeconds;
  if (name === "loggingGib" || name === "egressGib") return u[name];
  return undefined;
}

export function priceCustom(model: CustomModel, usage: CustomUsage): CostResult {
  const lines = model.items.map((item, i) =>
    costLine(`item:${i}`, item.label, item.quantityUnit ?? item.quantity, item.price, quantityOf(usage, item.quantity) ?? 0, item.free),
  );
  return costResult("custom", model.unit, lines, usage, []);
}
