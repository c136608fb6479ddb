import type { Metadata } from "next";
import { NewDefinitionPage } from "@/components/definitions-frame";
import { TargetForm } from "@/components/target-form";

export const metadata: Metadata = { title: "New target" };

export default function NewTargetPage() {
  return (
    <NewDefinitionPage title="New target" listHref="/targets" listLabel="all targets">
      <TargetForm />
    </NewDefinitionPage>
  );
}
