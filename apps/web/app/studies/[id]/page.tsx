import { NotFoundError } from "@opsbench/db";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { StudyLive } from "@/components/study-live";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Study ${(await params).id.slice(0, 8)}` };
}

export default async function StudyPage({ params }: Props) {
  const { id } = await params;
  const scope = await resolveWorkspace();
  let view;
  try {
    view = await scope.studies.view(id);
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    throw err;
  }
  return <StudyLive key={view.id} initial={view} />;
}
