export * from "./comparison-samples";
export * from "./verdict";
