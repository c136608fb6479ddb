// POST /api/v1/runs/{id}/ingest: what a batch of k6 output lines did to the run.
import { z } from "zod";

export const ingestAcceptedSchema = z.object({
  /** Rows written from this batch (per-second histograms, load and metric rows). */
  rows: z.number().int(),
  /** The execution segment the batch came from (0 for a k6 on its own). */
  segment: z.number().int(),
  /** True once every segment has sent its end: the run is summarised and final. */
  final: z.boolean(),
});
