import type { Metadata } from "next";
import { NewDefinitionPage } from "@/components/definitions-frame";
import { TargetForm } from "@/features/targets/target-form";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New target" };

export default async function NewTargetPage() {
  // The platform kinds name a credential: the form offers the workspace's by name and kind (never a secret).
  const credentials = (await (await resolveWorkspace()).credentials.list()).map(({ name, kind }) => ({ name, kind }));
  return (
    <NewDefinitionPage title="New target" listHref="/targets" listLabel="all targets">
      <TargetForm credentials={credentials} />
    </NewDefinitionPage>
  );
}
