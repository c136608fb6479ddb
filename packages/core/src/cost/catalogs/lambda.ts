// AWS Lambda list prices, x86, us-east-1, in USD.
import type { PriceCatalogEntryInput } from "../price-catalog";

export const lambdaX86UsEast1: PriceCatalogEntryInput = {
  name: "aws-lambda-x86-us-east-1",
  version: "2026-11",
  source: "https://aws.amazon.com/lambda/pricing/",
  date: "2026-11-21",
  description:
    "$0.20 per million requests and $0.0000166667 per GB-s (memory in MB / 1024), duration rounded up to 1 ms, no minimum " +
    "(the 100 ms minimum ended in 2020). CPU is not priced apart: it scales with memory. Free tier per month: 1 million " +
    "requests, 400,000 GB-s (left out here). memoryGib defaults to 128 MB; override it with your function's.",
  model: {
    kind: "pay-per-use",
    unit: "USD",
    billing: "request",
    pricePerRequest: 2e-7, // $0.20 per million
    pricePerGibSecond: 0.0000166667,
    memoryGib: 0.125,
    billingGranularityMs: 1,
  },
};
