// Google Cloud Run list prices, Tier 1 regions (e.g. us-central1, europe-west1), in USD.
// The monthly free tier is left out (free* = 0) so a run's cost is its marginal cost;
// set freeRequests, freeVcpuSeconds and freeGibSeconds to price a whole month.
import type { PriceCatalogEntryInput } from "../price-catalog";

const SOURCE = "https://cloud.google.com/run/pricing";

export const cloudRunRequestBased: PriceCatalogEntryInput = {
  name: "gcp-cloud-run-tier1-request-based",
  version: "2026-11",
  source: SOURCE,
  date: "2026-11-21",
  description:
    "Request-based billing (CPU only allocated during requests): $0.40 per million requests, $0.000024 per vCPU-s, " +
    "$0.0000025 per GiB-s, billed time rounded up to 100 ms. Free tier per billing account and month: 2 million requests, " +
    "180,000 vCPU-s, 360,000 GiB-s. With concurrency > 1, overlapping requests on one instance are billed once: give the " +
    "platform's billedSeconds when you have it; requests x mean response time overestimates.",
  model: {
    kind: "pay-per-use",
    unit: "USD",
    billing: "request",
    pricePerRequest: 4e-7, // $0.40 per million
    pricePerVcpuSecond: 0.000024,
    pricePerGibSecond: 0.0000025,
    vcpu: 1,
    memoryGib: 0.5,
    billingGranularityMs: 100,
  },
};

export const cloudRunInstanceBased: PriceCatalogEntryInput = {
  name: "gcp-cloud-run-tier1-instance-based",
  version: "2026-11",
  source: SOURCE,
  date: "2026-11-21",
  description:
    "Instance-based billing (CPU always allocated): $0.000018 per vCPU-s and $0.000002 per GiB-s for each instance's whole " +
    "life, no request fee. Free tier per month: 240,000 vCPU-s, 450,000 GiB-s. Give the instance count as a staircase.",
  model: {
    kind: "pay-per-use",
    unit: "USD",
    billing: "instance",
    pricePerVcpuSecond: 0.000018,
    pricePerGibSecond: 0.000002,
    vcpu: 1,
    memoryGib: 0.5,
    billingGranularityMs: 100,
  },
};
