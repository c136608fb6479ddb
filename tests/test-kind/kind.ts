// A kind that exists only in tests (tests/test-kind.test.ts): the echo benchapp in Node as a kind of its own, to show
// that a kind declared once in the catalog reaches the compiler, the API, the form and the worker.
import { defineKind } from "@opsbench/core";
import { z } from "zod";

export const TEST_KIND = "test-echo";

export const testEchoSpec = z.strictObject({ replicas: z.number().int().min(1).max(4).default(1) });

export const testEchoKind = defineKind({
  kind: TEST_KIND,
  spec: testEchoSpec,
  credential: null,
  place: "local",
  vcpuPerReplica: () => 1,
  pin: {
    replicas: (spec, n) => ({ ...spec, replicas: n }),
    nodes: () => "a test-echo target has no nodes opsbench sizes",
  },
  cost: { billedTime: "none" },
  observes: ["desired"],
  words: { label: TEST_KIND, description: "the echo benchapp, a kind only tests have", replicas: "replicas" },
});
