import type { CredentialKind } from "@opsbench/core";
import Link from "next/link";
import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { FormField, inputClass } from "@/components/form-field";

/** A workspace credential as the form may know it: its name and kind, never its secret. */
export interface CredentialOption {
  name: string;
  kind: CredentialKind;
}

const KIND_LABEL: Record<CredentialKind, string> = { aws: "AWS", gcp: "Google Cloud", kubernetes: "kubeconfig" };

/** The workspace's credentials of one kind; with none, a link to the settings page where an owner adds one. */
export function CredentialSelect({
  kind,
  path,
  value,
  onChange,
  credentials,
  errors,
}: {
  kind: CredentialKind;
  /** The spec path ("credential", "linked.credential"). */
  path: string;
  value: string;
  onChange: (name: string) => void;
  credentials: CredentialOption[];
  errors: FormErrors;
}) {
  const mine = credentials.filter((c) => c.kind === kind);
  const at = errorsAt(errors, `spec.${path}`);
  return (
    <div className="min-w-0">
      <FormField
        label={`Credential (${KIND_LABEL[kind]})`}
        path={`spec.${path}`}
        errors={at}
        hint={mine.length ? "used by the worker only; never shown" : undefined}
      >
        <select
          name={path}
          data-testid="target-credential"
          className={inputClass}
          value={value}
          aria-invalid={at.length > 0 || undefined}
          onChange={(e) => onChange(e.target.value)}
        >
          <option value="">{mine.length ? "choose one" : "none saved"}</option>
          {mine.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
      </FormField>
      {mine.length === 0 && (
        <p data-testid="credential-none" className="mt-0.5 text-2xs text-zinc-500">
          No {KIND_LABEL[kind]} credential yet:{" "}
          <Link href="/settings" className="text-blue-600 hover:underline">
            add one in Settings
          </Link>
        </p>
      )}
    </div>
  );
}
