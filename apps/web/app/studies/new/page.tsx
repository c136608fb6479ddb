import { plannedSeconds, workloadSpec } from "@opsbench/core";
import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/panel";
import { StudyForm } from "@/features/studies/study-form";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New study" };

const planned = (spec: unknown) => {
  const r = workloadSpec.safeParse(spec);
  return r.success ? plannedSeconds(r.data) : 0;
};

export default async function NewStudyPage() {
  const scope = await resolveWorkspace();
  const [targets, workloads] = await Promise.all([scope.targets.list(), scope.workloads.list()]);
  return (
    <div className="space-y-4">
      <PageHeader title="New study">
        <Link href="/studies" className="text-xs text-blue-600 hover:underline">
          all studies
        </Link>
      </PageHeader>
      <StudyForm
        targets={targets.map((t) => ({ name: t.name, kind: t.kind }))}
        workloads={workloads.map((w) => ({ name: w.name, kind: w.kind, plannedSeconds: planned(w.spec) }))}
      />
    </div>
  );
}
