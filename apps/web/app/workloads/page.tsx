import { describeWorkload, loadProfile, plannedSeconds, workloadSpec, type WorkloadSpec } from "@opsbench/core";
import type { Metadata } from "next";
import Link from "next/link";
import { DefinitionsListPage } from "@/components/definitions-frame";
import { DeleteDefinitionButton } from "@/components/delete-button";
import { ListTable } from "@/components/list-table";
import { fmtDuration, fmtTime, NO_VALUE } from "@/lib/format";
import { DemoCommand, EmptyState } from "@/components/empty-state";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Workloads" };

/** A tiny inline profile (SVG polyline), so the list shows each workload's shape. */
function Sparkline({ spec }: { spec: WorkloadSpec }) {
  const pts = loadProfile(spec);
  if (pts.length < 2) return <span className="text-zinc-500">{NO_VALUE}</span>;
  const y = (p: (typeof pts)[number]) => p.vus ?? p.rate ?? p.percentOfMax ?? 0;
  const maxT = Math.max(...pts.map((p) => p.t)) || 1;
  const maxY = Math.max(...pts.map(y)) || 1;
  const d = pts.map((p) => `${((p.t / maxT) * 96 + 2).toFixed(1)},${(22 - (y(p) / maxY) * 20).toFixed(1)}`).join(" ");
  return (
    <svg width="100" height="24" aria-hidden className="inline-block">
      <polyline points={d} fill="none" stroke="#2563eb" strokeWidth="1.5" />
    </svg>
  );
}

export default async function WorkloadsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const scope = await resolveWorkspace();
  const saved = (await searchParams).saved;
  const rows = await scope.workloads.list();
  return (
    <DefinitionsListPage
      title="Workloads"
      newLink={{ href: "/workloads/new", label: "New workload" }}
      saved={typeof saved === "string" && saved ? saved.split(",").join(", ") : null}
      savedTestId="workload-saved"
      count={rows.length}
      empty={
        <EmptyState testId="workloads-empty" links={[{ href: "/workloads/new", label: "New workload", atLeast: "editor" }]}>
          No workloads yet. Start from a preset of the five studies (IoT spike, concurrency sweep, step ramp, …) or bring your own k6 script
          with “New workload”; the demo study (<DemoCommand />) defines an IoT spike.
        </EmptyState>
      }
      footer={
        <p className="text-2xs text-zinc-500">
          From the command line: <code>opsbench workload preset list</code>, <code>opsbench workload show NAME --k6</code> (the compiled k6
          script). See docs/workloads.md.
        </p>
      }
    >
      <ListTable
        testId="workloads-table"
        rows={rows.map((w) => {
          const parsed = workloadSpec.safeParse(w.spec);
          const spec = parsed.success ? parsed.data : null;
          return { w, spec, planned: spec ? plannedSeconds(spec) : 0 };
        })}
        rowKey={({ w }) => w.id}
        rowData={({ w }) => ({ "data-testid": "workload-row", "data-name": w.name })}
        columns={[
          {
            header: "Name",
            className: "whitespace-nowrap font-mono font-medium",
            cell: ({ w }) => (
              <Link href={`/workloads/${encodeURIComponent(w.name)}`} data-testid="workload-link" className="text-blue-600 hover:underline">
                {w.name}
              </Link>
            ),
          },
          {
            header: "Kind",
            cell: ({ w }) => <span className="rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-600">{w.kind}</span>,
          },
          { header: "Profile", cell: ({ spec }) => (spec ? <Sparkline spec={spec} /> : NO_VALUE) },
          {
            header: "Planned",
            right: true,
            className: "font-mono tabular-nums text-zinc-600",
            cell: ({ planned }) => (planned > 0 ? fmtDuration(planned * 1000) : NO_VALUE),
          },
          {
            header: "What it does",
            className: "max-w-md text-2xs text-zinc-600",
            cell: ({ spec }) => (spec ? describeWorkload(spec).join("; ") : "unreadable spec (open it to see why)"),
          },
          {
            header: "Updated (UTC)",
            className: "whitespace-nowrap font-mono text-zinc-600",
            cell: ({ w }) => fmtTime(w.updatedAt.toISOString()),
          },
          {
            header: "",
            right: true,
            className: "whitespace-nowrap",
            cell: ({ w }) => <DeleteDefinitionButton kind="workload" id={w.id} name={w.name} />,
          },
        ]}
      />
    </DefinitionsListPage>
  );
}
