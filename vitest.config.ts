import { defineConfig } from "vitest/config";

export default defineConfig({
  // Web modules import each other as "@/..." (apps/web/tsconfig.json); tests load the route contracts.
  resolve: { tsconfigPaths: true },

  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "tests/**/*.test.ts"],
    globalSetup: ["tests/global-setup.ts"],
    // Integration tests share one worker and one machine: a load test running
    // beside another would measure it. Files run one at a time.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
