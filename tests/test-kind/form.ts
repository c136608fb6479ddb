// The test kind's form: one box, its replicas.
import type { PlatformKindForm } from "@/features/targets/target-form/kinds/kind-props";

export const testEchoForm: PlatformKindForm = {
  place: "platform",
  // The test reads the picker and builds specs; it renders nothing.
  Fields: () => null,
  start: { replicas: "1" },
  build: (values) => ({ replicas: Number(values.replicas) }),
  fields: { replicas: "int" },
  describe: (spec) => [`echo/node, ${(spec as { replicas?: number }).replicas ?? 1} replica(s)`],
};
