export * from "./histogram";
export * from "./histogram-encoding";
export * from "./latency-summary";
export * from "./target-spec";
export * from "./workload-spec";
export * from "./k6-script";
export * from "./k6-output-format";
export * from "./run-status";
