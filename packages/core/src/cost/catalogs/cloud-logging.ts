// Google Cloud Logging, in USD. The IoT study paid 373.93 of its 557.94 EUR for
// logs (845.553 GB written, mostly by a platform failure) and saw it a day late.
import type { PriceCatalogEntryInput } from "../price-catalog";

export const cloudLogging: PriceCatalogEntryInput = {
  name: "gcp-cloud-logging",
  version: "2026-11",
  source: "https://cloud.google.com/stackdriver/pricing",
  date: "2026-11-21",
  description:
    "Log storage (ingestion) $0.50 per GiB, including 30 days of retention; the first 50 GiB per project and month are free " +
    "(left out here: set free to 50 to price a whole month). Also usable as the `logging` line of any model: " +
    '{"pricePerGib":0.5}.',
  model: {
    kind: "custom",
    unit: "USD",
    items: [{ label: "log ingestion", quantity: "loggingGib", quantityUnit: "GiB", price: 0.5 }],
  },
};
