// What a process on this machine needs to run and fence other processes: process groups it owns, cgroup limits,
// network namespaces, the load generator's one-way network, free loopback ports. No cloud SDK and no secret:
// the runner (which runs users' scripts) and the local providers (in the worker) both use it.
export * from "./cgroups";
export { freePort } from "./free-port.mjs";
export * from "./load-network";
export * from "./netns";
export * from "./process-env";
export * from "./processes";
