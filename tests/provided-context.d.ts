// What the global set-up provides to test files through vitest's inject().
import "vitest";
import type { TestIdentity } from "./test-identity";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    webUrl: string;
    /** The tests' account: instance admin and owner of "default" (tests/test-identity.ts). */
    testIdentity: TestIdentity;
  }
}
