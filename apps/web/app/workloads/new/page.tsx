import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/panel";
import { WorkloadForm } from "@/components/workload-form";

export const metadata: Metadata = { title: "New workload" };

export default function NewWorkloadPage() {
  return (
    <div className="space-y-4">
      <PageHeader title="New workload">
        <Link href="/workloads" className="text-xs text-blue-600 hover:underline">
          all workloads
        </Link>
      </PageHeader>
      <WorkloadForm />
    </div>
  );
}
