// The test kind's provider: the local-service provider running benchapps/echo/node with the test spec's replicas.
import { localServiceSpec } from "@opsbench/core";
import { localService, type LocalServiceState, type Provider } from "@opsbench/providers";
import type { z } from "zod";
import { TEST_KIND, testEchoSpec } from "./kind";

const asLocalService = (spec: z.output<typeof testEchoSpec>) => localServiceSpec.parse({ app: "echo/node", replicas: spec.replicas });

// Its kind's name as a literal: the registry (packages/providers/src/index.ts) files a provider only under its own kind.
export const testEchoProvider: Provider<z.output<typeof testEchoSpec>, LocalServiceState> & { kind: typeof TEST_KIND } = {
  kind: TEST_KIND,
  spec: testEchoSpec,
  deploy: (spec, ctx) => localService.deploy(asLocalService(spec), ctx),
  reset: (dep, ctx) => localService.reset(dep, ctx),
  observe: (dep, window, ctx) => localService.observe(dep, window, ctx),
  teardown: (dep, ctx) => localService.teardown(dep, ctx),
};
