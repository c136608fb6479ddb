import type { FormErrors } from "@/lib/api/form-errors";
import type { CredentialOption } from "@/features/targets/target-form/credential-select";
import type { KindInputs } from "@/features/targets/target-form/kind-inputs";

/** What each cloud kind's fields component gets. */
export interface KindFieldsProps {
  inputs: KindInputs;
  credentials: CredentialOption[];
  errors: FormErrors;
}
