// What the global set-up provides to test files through vitest's inject().
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    webUrl: string;
  }
}
