// Optional per-GiB lines of a model: log ingestion and internet egress. The IoT
// study paid 373.93 of 557.94 EUR for Cloud Logging, noticed a day late.
import { z } from "zod";
import { costLine, type CostLine } from "./cost-result";

export const perGibPrice = z
  .object({
    pricePerGib: z.number().min(0, "must be >= 0"),
    /** GiB the free tier covers (e.g. Cloud Logging's first 50 GiB per project and month). */
    freeGib: z.number().min(0, "must be >= 0").default(0),
  })
  .strict();
export type PerGibPrice = z.infer<typeof perGibPrice>;

export function perGibLines(
  model: { logging?: PerGibPrice; egress?: PerGibPrice },
  usage: { loggingGib: number; egressGib: number },
  notes: string[],
): CostLine[] {
  const out: CostLine[] = [];
  if (model.logging)
    out.push(costLine("logging", "log ingestion", "GiB", model.logging.pricePerGib, usage.loggingGib, model.logging.freeGib));
  else if (usage.loggingGib > 0) notes.push(`the usage has ${usage.loggingGib} GiB of logs but the model prices no logging`);
  if (model.egress) out.push(costLine("egress", "egress", "GiB", model.egress.pricePerGib, usage.egressGib, model.egress.freeGib));
  else if (usage.egressGib > 0) notes.push(`the usage has ${usage.egressGib} GiB of egress but the model prices no egress`);
  return out;
}
