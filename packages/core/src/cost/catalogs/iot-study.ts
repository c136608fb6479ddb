// Prices derived in study 000 (the IoT platform: GKE vs OpenWhisk vs Cloud Run),
// in EUR-cent per second, as the study traced them back from its April 2022 invoice.
import type { PriceCatalogEntryInput } from "../price-catalog";

const STUDY =
  "V. Pacyna, DevOps Versus NoOps Performance Comparison of an IoT Platform, Bachelor's thesis, TU Munich, 2022, Section 5.2 and Table A.1";

export const iotStudyGke: PriceCatalogEntryInput = {
  name: "iot-study-gke-europe-west3",
  version: "2022-04",
  source: STUDY,
  date: "2022-04-30",
  description:
    "A GKE Standard node of 8 vCPU, 32 GB RAM and 100 GB persistent disk in europe-west3 (Frankfurt): 8.7959e-3 EUR-cent/s; " +
    "GKE management fee 2.4996e-3 EUR-cent/s. Both are rounded to 5 digits in the study: 2 nodes x 1800 s give 36.1645 here " +
    "against the study's 36.1643 (the invoice's own rates, 8.795852e-3 and 2.499574e-3, give 36.1643 and 83.6619 exactly). " +
    "No per-node minimum, as in the study. Prices: https://cloud.google.com/kubernetes-engine/pricing",
  model: {
    kind: "reserved",
    unit: "EUR-cent",
    nodeLabel: "node (8 vCPU, 32 GB, 100 GB disk)",
    pricePerNodeSecond: 8.7959e-3,
    fees: [{ label: "GKE management fee", perSecond: 2.4996e-3 }],
  },
};

export const iotStudyCloudRun: PriceCatalogEntryInput = {
  name: "iot-study-cloud-run-europe-west3",
  version: "2022-04",
  source: STUDY,
  date: "2022-04-30",
  description:
    "Cloud Run (1 vCPU, 256 MB, concurrency 100) as the study priced it: the month's request charge averaged per request " +
    "and its vCPU and memory charge spread over requests x mean response time. The study states no rates; these two are " +
    "back-derived from its Table A.1 (they reproduce all 21 Cloud Run run costs to within 0.0001 EUR-cent). " +
    "One rate covers vCPU and memory; give meanBilledSeconds = the run's mean response time, as the study did.",
  model: {
    kind: "pay-per-use",
    unit: "EUR-cent",
    billing: "request",
    pricePerRequest: 2.5681e-5,
    pricePerVcpuSecond: 9.1221e-4,
    vcpu: 1,
  },
};
