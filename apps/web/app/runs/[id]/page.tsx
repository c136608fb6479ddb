import type { Metadata } from "next";
import { RunLive } from "@/components/run-live";
import { orNotFound } from "@/lib/server/or-not-found";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Run ${(await params).id.slice(0, 8)}` };
}

export default async function RunPage({ params }: Props) {
  const { id } = await params;
  const scope = await resolveWorkspace();
  const view = await orNotFound(scope.runs.view(id));
  return <RunLive key={view.id} initial={view} />;
}
