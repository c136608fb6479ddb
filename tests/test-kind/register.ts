// Registers the test kind at run time, its spec, provider and form, before anything reads the catalog: imported first
// by tests/test-kind.test.ts.
import { registerTargetKind } from "@opsbench/core";
import { registerProvider } from "@opsbench/providers";
import { registerKindForm } from "@/features/targets/target-form/kinds/kind-forms";
import { testEchoForm } from "./form";
import { TEST_KIND, testEchoKind } from "./kind";
import { testEchoProvider } from "./provider";

registerTargetKind(testEchoKind);
registerProvider(testEchoProvider);
registerKindForm(TEST_KIND, testEchoForm);
