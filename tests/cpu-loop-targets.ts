// Targets of the cpu-loop benchapp written as a user would (defaults filled by parsing), and the prices the
// cost tests give them: the worker's run cost and the web's comparison with costs.
import { type TargetInput, targetInput } from "@opsbench/core";
import type { z } from "zod";

type LocalKind = "local-service" | "local-function";
type SpecOf<K extends LocalKind> = Omit<Extract<z.input<typeof targetInput>, { kind: K }>["spec"], "app">;

/** A cpu-loop target of that kind and spec. */
export function cpuLoopTarget<K extends LocalKind>(name: string, kind: K, spec: SpecOf<K>): TargetInput {
  return targetInput.parse({ name, kind, spec: { app: "cpu-loop/node-http", ...spec } });
}

/** A reserved node priced like the IoT study's GKE: EUR cents per node-second, plus a fee per second. */
export const GKE_NODE_PRICES = { kind: "reserved", unit: "EUR-cent", pricePerNodeSecond: 0.0087959, feePerSecond: 0.0024996 } as const;
