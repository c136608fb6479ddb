import type { FunctionPlatform } from "@opsbench/core";
import type { ComponentType } from "react";
import type { FormErrors } from "@/lib/api/form-errors";
import type { CredentialOption } from "@/features/targets/target-form/credential-select";
import type { KindInputs } from "@/features/targets/target-form/kind-inputs";
import type { SpecInputs } from "@/features/targets/target-form/spec-inputs";
import type { FieldType, SpecValues } from "@/features/targets/target-form/spec-values";
import type { Scaling, TargetValues } from "@/features/targets/target-form/target-spec";

/** What each platform kind's fields component gets. */
export interface KindFieldsProps {
  inputs: KindInputs;
  credentials: CredentialOption[];
  errors: FormErrors;
}

/** What a local kind's fields component gets: the local boxes (target-spec.ts), shared by both local kinds. */
export interface LocalFieldsProps {
  scaling: Scaling;
  onScaling: (s: Scaling) => void;
  platform: FunctionPlatform;
  onPlatform: (p: FunctionPlatform) => void;
  inputs: SpecInputs;
  errors: FormErrors;
}

/** The local boxes as typed, which a local kind's build turns into its spec. */
export interface LocalFormState {
  app: string;
  scaling: Scaling;
  platform: FunctionPlatform;
  values: TargetValues;
}

/** A kind that runs benchapps on this machine: the app picker and the local boxes. */
export interface LocalKindForm {
  place: "local";
  Fields: ComponentType<LocalFieldsProps>;
  build: (state: LocalFormState) => Record<string, unknown>;
  /** Its spec in words (defaults filled in), null while not valid: the form's preview. */
  describe: (spec: unknown) => string[] | null;
}

/** A kind that deploys to a real platform (or points at one): boxes of its own, kept per kind while switching. */
export interface PlatformKindForm {
  place: "platform";
  Fields: ComponentType<KindFieldsProps>;
  start: SpecValues;
  build: (values: SpecValues) => Record<string, unknown>;
  /** The boxes, by spec path. */
  fields: Record<string, FieldType>;
  /** A stored spec's boxes and modes (default: each field's value). */
  values?: (spec: unknown) => SpecValues;
  /** Spec keys a mode stands for (kubernetes' portForward), not kept aside when editing. */
  covered?: readonly string[];
  /** Its spec in words (defaults filled in), null while not valid: the form's preview and the targets list. */
  describe: (spec: unknown) => string[] | null;
}

export type KindForm = LocalKindForm | PlatformKindForm;
