"use client";

import { type FunctionPlatform, targetSpecOf } from "@opsbench/core";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { type FormErrors, NO_ERRORS, readFormErrors } from "@/lib/api/form-errors";
import { FormErrorBanner } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";
import type { CredentialOption } from "./target-form/credential-select";
import { kindInputs } from "./target-form/kind-inputs";
import { editedSpec } from "./target-form/kinds/cloud-kinds";
import { describeKind } from "./target-form/kinds/describe-kind";
import { kindFormOf } from "./target-form/kinds/kind-forms";
import type { SpecValues } from "./target-form/spec-values";
import { HostVerification } from "./target-form/host-verification";
import { IdentityFields } from "./target-form/identity-fields";
import { costModelOf, type PricingValues, pricingOf } from "./target-form/pricing";
import { PricingFields } from "./target-form/pricing-fields";
import { type FormSnapshot, revalidated } from "./target-form/revalidate";
import { specInputs } from "./target-form/spec-inputs";
import { EMPTY_TARGET_VALUES, localFormOf, type Scaling, type TargetValues } from "./target-form/target-spec";
import { TargetPreview } from "./target-form/target-preview";

const NO_VALUES: SpecValues = {};

/** A saved target to edit (its spec as the API shows it: secrets hidden). */
export interface EditedTarget {
  name: string;
  /** A kind with a form (kindFormOf). */
  kind: string;
  spec: unknown;
}

/**
 * New target, or a saved one edited (`initial`: its name and kind fixed, its boxes filled): a form per kind; the
 * API's 422 issues are shown next to their fields.
 */
export function TargetForm({ credentials, initial }: { credentials: CredentialOption[]; initial?: EditedTarget }) {
  const router = useRouter();
  /** A platform kind's edited spec: its boxes, and what they do not show, sent back unchanged. */
  const [edited] = useState(() => (initial && isPlatform(initial.kind) ? editedSpec(initial.kind, initial.spec) : null));
  /** A local kind's edited spec, the same way. */
  const [local] = useState(() => (initial && !isPlatform(initial.kind) ? localFormOf(initial.spec) : null));
  const [name, setName] = useState(initial?.name ?? "");
  const [kind, setKind] = useState<string>(initial?.kind ?? "local-service");
  const [app, setApp] = useState<string>(local?.app ?? "cpu-loop/node-http");
  const [scaling, setScaling] = useState<Scaling>(local?.scaling ?? "autoscaled");
  const [platform, setPlatform] = useState<FunctionPlatform>(local?.platform ?? "cloud-run");
  const [v, setV] = useState<TargetValues>(local?.values ?? EMPTY_TARGET_VALUES);
  const [pricing, setPricing] = useState<PricingValues>(() => pricingOf((initial?.spec as { costModel?: unknown } | undefined)?.costModel));
  /** The platform kinds' boxes, per kind (switching kinds keeps what was typed). */
  const [cloud, setCloud] = useState<Partial<Record<string, SpecValues>>>(() =>
    initial && edited ? { [initial.kind]: { ...startOf(initial.kind), ...edited.values } } : {},
  );
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const set = (key: keyof TargetValues) => (value: string) => setV((old) => ({ ...old, [key]: value }));

  const form = kindFormOf(kind);
  const cloudValues = form?.place === "platform" ? (cloud[kind] ?? form.start) : NO_VALUES;
  const setCloudValue = (path: string) => (value: string) => {
    if (form?.place !== "platform") return;
    setCloud((old) => ({ ...old, [kind]: { ...(old[kind] ?? form.start), [path]: value } }));
  };
  const setPricingValue = (key: keyof PricingValues) => (value: string) => setPricing((old) => ({ ...old, [key]: value }));
  const costModel = useMemo(() => costModelOf(pricing), [pricing]);
  const spec = useMemo(() => {
    const kept = (kind === initial?.kind ? (edited?.kept ?? local?.kept) : undefined) ?? {};
    const built = form?.place === "local" ? form.build({ app, scaling, platform, values: v }) : form?.build(cloudValues);
    return { ...kept, ...built, ...(costModel === undefined ? {} : { costModel }) };
  }, [form, kind, app, scaling, v, platform, cloudValues, edited, local, initial?.kind, costModel]);
  /** What was sent when the errors shown were answered: a field changed since is judged again (revalidate.ts). */
  const sent = useRef<FormSnapshot>({ name: "", spec: {} });
  useEffect(() => {
    setErrors((old) => revalidated(old, sent.current, kind, { name, spec }));
  }, [kind, name, spec]);
  /** The settings it will run with (defaults filled in), when the spec is valid. */
  const effective = useMemo(() => describeKind(kind, spec), [kind, spec]);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    sent.current = { name, spec };
    try {
      const res = await fetch("/api/v1/targets", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: name.trim(), kind, spec }),
      });
      if (!res.ok) {
        setErrors(await readFormErrors(res));
        setBusy(false);
        return;
      }
      router.push(`/targets?saved=${encodeURIComponent(name.trim())}`);
    } catch (err) {
      setErrors({ message: (err as Error).message, fields: {} });
      setBusy(false);
    }
  }

  const inputs = specInputs(v, set, errors);
  const unplaced = Object.keys(errors.fields).length > 0;

  return (
    <form data-testid="target-form" onSubmit={submit} noValidate className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]">
      <div className="space-y-4 rounded-md border border-zinc-200 bg-white p-4">
        <FormErrorBanner message={errors.message && (unplaced ? `The target was not saved: ${errors.message}` : errors.message)} />
        <IdentityFields
          editing={initial !== undefined}
          name={name}
          onName={setName}
          kind={kind}
          onKind={(k) => {
            setKind(k);
            setErrors(NO_ERRORS);
          }}
          app={app}
          onApp={setApp}
          errors={errors}
        />
        {form?.place === "local" && (
          <form.Fields
            scaling={scaling}
            onScaling={setScaling}
            platform={platform}
            onPlatform={setPlatform}
            inputs={inputs}
            errors={errors}
          />
        )}
        {form?.place === "platform" && (
          <form.Fields
            inputs={kindInputs(targetSpecOf(kind), cloudValues, setCloudValue, errors)}
            credentials={credentials}
            errors={errors}
          />
        )}
        <PricingFields values={pricing} set={setPricingValue} errors={errors} />
        <div className="flex items-center gap-3 border-t border-zinc-100 pt-3">
          <button type="submit" data-testid="target-save" className={buttonPrimary} disabled={busy}>
            {busy ? "Saving…" : "Save target"}
          </button>
          <span className="text-2xs text-zinc-500">
            {initial
              ? "Saving replaces this target's spec; runs made before keep the copy they ran with."
              : "A target with the same name is replaced."}
          </span>
        </div>
      </div>
      <TargetPreview effective={effective} saved={{ name, kind, spec }}>
        <HostVerification spec={spec} savedName={initial?.name} savedSpec={initial?.spec} />
      </TargetPreview>
    </form>
  );
}

const isPlatform = (kind: string) => kindFormOf(kind)?.place === "platform";

/** A platform kind's first boxes. */
function startOf(kind: string) {
  const form = kindFormOf(kind);
  return form?.place === "platform" ? form.start : NO_VALUES;
}
