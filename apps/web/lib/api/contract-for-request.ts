// The route contract a request is answered under, found by its method and path; apiRoute reads the required
// role from it, so a route's access rule lives beside its schemas and nowhere else.
import { API_CONTRACTS, type RouteContract } from "./contracts";

const matchers = Object.values(API_CONTRACTS).map((contract: RouteContract) => ({
  contract,
  path: new RegExp(`^${contract.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
}));

export function contractForRequest(method: string, pathname: string): RouteContract | undefined {
  return matchers.find((m) => m.contract.method === method && m.path.test(pathname))?.contract;
}
