export * from "./queues";
export * from "./run-updates";
export * from "./start-run";
export * from "./study-queue";
export * from "./study-updates";
export * from "./start-study";
export * from "./script-validation";
export * from "./worker-heartbeat";
