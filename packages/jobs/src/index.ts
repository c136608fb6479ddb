export * from "./queues";
export * from "./run-updates";
export * from "./start-run";
