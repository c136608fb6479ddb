import type { Metadata } from "next";
import { NewDefinitionPage } from "@/components/definitions-frame";
import { WorkloadForm } from "@/features/workloads/workload-form";

export const metadata: Metadata = { title: "New workload" };

export default function NewWorkloadPage() {
  return (
    <NewDefinitionPage title="New workload" listHref="/workloads" listLabel="all workloads">
      <WorkloadForm />
    </NewDefinitionPage>
  );
}
