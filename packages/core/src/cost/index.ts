// The cost engine's public surface (pure: no I/O). See docs/cost.md.
export { type CostIssue, type CostParse, formatCostIssues, issuesFromZod as costIssuesFromZod } from "./cost-issues";
export { costLineSchema, costResultSchema, type CostLine, type CostResult } from "./cost-result";
export { staircaseStep, staircaseSeconds, billedStaircaseSeconds, type StaircaseStep } from "./staircase";
export { perGibPrice, type PerGibPrice } from "./per-gib-line";
export { reservedModel, reservedUsage, reservedUsageFor, priceReserved, type ReservedModel, type ReservedUsage } from "./reserved-cost";
export { lcuHours, nodeStaircase, podsPerNodeOf, LCU_DIMENSIONS, type LcuUsage, type NodePacking } from "./node-packing";
export {
  payPerUseModel,
  payPerUseUsage,
  payPerUseUsageFor,
  pricePayPerUse,
  type PayPerUseModel,
  type PayPerUseUsage,
} from "./pay-per-use-cost";
export { customModel, customUsage, customUsageFor, priceCustom, type CustomModel, type CustomUsage } from "./custom-cost";
export { costModel, usageSchemaFor, parseCostUsage, priceUsage, type CostModel, type CostModelInput, type CostUsage } from "./cost-model";
export {
  priceCatalogEntry,
  priceCatalogName,
  findPriceCatalog,
  type PriceCatalogEntry,
  type PriceCatalogEntryInput,
} from "./price-catalog";
export { parseCostModel, type ResolvedCostModel } from "./resolve-cost-model";
export { breakEven, breakEvenInput, type BreakEven, type BreakEvenInput, type BreakEvenPoint, type BreakEvenCrossing } from "./break-even";
export { BUILTIN_PRICE_CATALOGS } from "./catalogs";
export { costModelDocument, priceRun, runCostSchema, usageForRun, type RunCost, type RunUsageFacts } from "./run-cost";
export {
  groupCost,
  groupCapacity,
  breakEvenPairs,
  MONTH_SECONDS,
  perMonthAtMeasuredRate,
  rankablePriced,
  type GroupCost,
  type GroupCapacity,
  type RunCapacitySign,
  type BreakEvenPair,
  type CostedGroup,
} from "./group-cost";
