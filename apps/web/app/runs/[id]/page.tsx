import { NotFoundError } from "@opsbench/db";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunLive } from "@/components/run-live";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Run ${(await params).id.slice(0, 8)}` };
}

export default async function RunPage({ params }: Props) {
  const { id } = await params;
  const scope = await resolveWorkspace();
  let view;
  try {
    view = await scope.runs.view(id);
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    throw err;
  }
  return <RunLive key={view.id} initial={view} />;
}
