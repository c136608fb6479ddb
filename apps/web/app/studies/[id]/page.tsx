import type { Metadata } from "next";
import { StudyLive } from "@/features/studies/study-live";
import { orNotFound } from "@/lib/server/or-not-found";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Study ${(await params).id.slice(0, 8)}` };
}

export default async function StudyPage({ params }: Props) {
  const { id } = await params;
  const scope = await resolveWorkspace();
  const view = await orNotFound(scope.studies.view(id));
  return <StudyLive key={view.id} initial={view} />;
}
