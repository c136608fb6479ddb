export * from "./comparison-samples";
export * from "./comparison-view-schema";
export * from "./run-rollup";
export * from "./verdict";
export * from "./run-point";
export * from "./series-changes";
