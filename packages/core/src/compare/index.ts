export * from "./bootstrap";
export * from "./verdict";
