import { redactTargetSecrets, roleAllows } from "@opsbench/core";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { NewDefinitionPage } from "@/components/definitions-frame";
import { TargetForm } from "@/features/targets/target-form";
import { kindFormOf } from "@/features/targets/target-form/kinds/kind-forms";
import { orNotFound } from "@/lib/server/or-not-found";
import { requireMember } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Edit target ${decodeURIComponent((await params).name)}` };
}

/** A saved target in the form, its boxes filled from its spec (secrets hidden as the API hides them); saving replaces its spec. */
export default async function EditTargetPage({ params }: Props) {
  const name = decodeURIComponent((await params).name);
  const { scope, role } = await requireMember();
  const target = await orNotFound(scope.targets.byName(name));
  // Every kind with a form edits; a stored target of a kind this build has no form for does not.
  if (!kindFormOf(target.kind)) notFound();
  const credentials = (await scope.credentials.list()).map(({ name, kind }) => ({ name, kind }));
  const spec = redactTargetSecrets(target.spec, { canEdit: roleAllows(role, "editor") });
  return (
    <NewDefinitionPage title={`Edit target ${target.name}`} listHref="/targets" listLabel="all targets">
      <TargetForm credentials={credentials} initial={{ name: target.name, kind: target.kind, spec }} />
    </NewDefinitionPage>
  );
}
