import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/panel";
import { TargetForm } from "@/components/target-form";

export const metadata: Metadata = { title: "New target" };

export default function NewTargetPage() {
  return (
    <div className="space-y-4">
      <PageHeader title="New target">
        <Link href="/targets" className="text-xs text-blue-600 hover:underline">
          all targets
        </Link>
      </PageHeader>
      <TargetForm />
    </div>
  );
}
