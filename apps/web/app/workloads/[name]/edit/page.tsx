import { roleAllows, workloadSpec } from "@opsbench/core";
import type { Metadata } from "next";
import { NewDefinitionPage } from "@/components/definitions-frame";
import { WorkloadForm } from "@/features/workloads/workload-form";
import { orNotFound } from "@/lib/server/or-not-found";
import { requireMember } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Edit workload ${decodeURIComponent((await params).name)}` };
}

/**
 * A saved workload in the form: a script in the script box, a generated kind in the Build tab's boxes (what the
 * boxes do not show, e.g. more requests or pools, is kept). Saving replaces its spec; runs keep the copy they ran.
 */
export default async function EditWorkloadPage({ params }: Props) {
  const name = decodeURIComponent((await params).name);
  const { scope, role } = await requireMember();
  const workload = await orNotFound(scope.workloads.byName(name));
  const parsed = workloadSpec.safeParse(workload.spec);
  const href = `/workloads/${encodeURIComponent(workload.name)}`;
  return (
    <NewDefinitionPage title={`Edit workload ${workload.name}`} listHref={href} listLabel={`back to ${workload.name}`}>
      {roleAllows(role, "editor") ? (
        <WorkloadForm initial={{ name: workload.name, spec: parsed.success ? parsed.data : null }} />
      ) : (
        <p data-testid="workload-edit-refused" className="text-xs text-zinc-600">
          A viewer cannot edit workloads: an editor or owner of the workspace can.
        </p>
      )}
    </NewDefinitionPage>
  );
}
