export * from "./bootstrap";
export * from "./verdict";
export * from "./comparison-samples";
