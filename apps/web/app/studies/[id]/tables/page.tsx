import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/panel";
import { StudyTables } from "@/features/studies/study-tables";
import { orNotFound } from "@/lib/server/or-not-found";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Study ${(await params).id.slice(0, 8)}: tables` };
}

/** The study's tables as the studies printed them (?request=<name>: the request name maximum throughput is of). */
export default async function StudyTablesPage({ params, searchParams }: Props) {
  const { id } = await params;
  const request = [(await searchParams).request].flat()[0];
  const scope = await resolveWorkspace();
  const view = await orNotFound(scope.studies.tables(id, { requestName: request ?? null }));
  return (
    <div className="space-y-3">
      <PageHeader title={`${view.name}: tables`}>
        <Link href={`/studies/${view.id}`} className="text-xs text-blue-600 hover:underline">
          back to the study
        </Link>
      </PageHeader>
      <form method="get" data-testid="study-tables-request-form" className="flex items-center gap-2 text-xs text-zinc-700 print:hidden">
        <label htmlFor="study-tables-request">Maximum throughput (study 004) of</label>
        <select
          id="study-tables-request"
          name="request"
          defaultValue={view.requestName ?? ""}
          className="rounded border border-zinc-300 px-1 py-0.5 font-mono"
        >
          <option value="">all requests</option>
          {view.requestNames.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
        <button type="submit" className="rounded border border-zinc-300 bg-white px-2 py-0.5 hover:bg-zinc-50">
          Apply
        </button>
        <span className="text-zinc-500">
          {view.status === "SUCCEEDED" ? "" : `study ${view.status.toLowerCase()}: figures over the runs succeeded so far`}
        </span>
      </form>
      {view.cells.every((c) => c.n === 0) ? (
        <p className="text-xs text-zinc-500">No run of this study has succeeded yet.</p>
      ) : (
        <StudyTables view={view} />
      )}
    </div>
  );
}
