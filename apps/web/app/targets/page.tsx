import { typedEndpointOf } from "@opsbench/core";
import type { Metadata } from "next";
import { DefinitionsListPage, NewDefinitionLink } from "@/components/definitions-frame";
import { DeleteDefinitionButton } from "@/components/delete-button";
import { kindFormOf } from "@/features/targets/target-form/kinds/kind-forms";
import { describePricing } from "@/features/targets/target-form/pricing";
import { ListTable } from "@/components/list-table";
import { fmtTime } from "@/lib/format";
import { DemoCommand, EmptyState } from "@/components/empty-state";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Targets" };

/**
 * The spec as it will run (defaults filled in), in one line: its kind's own description (the form's preview), whole
 * for a local kind, the first two lines (what it makes and where the load goes) for a platform kind.
 */
function describe(kind: string, spec: unknown): { app: string; text: string } {
  const form = kindFormOf(kind);
  const lines = form?.describe(spec);
  if (!form || lines === undefined) return { app: "—", text: JSON.stringify(spec).slice(0, 120) };
  if (lines === null) return { app: "?", text: "unreadable spec" };
  const app = form.place === "local" && typeof (spec as { app?: unknown }).app === "string" ? (spec as { app: string }).app : "—";
  return { app, text: (form.place === "local" ? lines : lines.slice(0, 2)).join("; ") };
}

export default async function TargetsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const scope = await resolveWorkspace();
  const saved = (await searchParams).saved;
  const rows = await scope.targets.list();
  // The proof of ownership of each host a target names (docs/security.md "Egress policy").
  const proofs = new Map(
    await Promise.all(rows.filter((t) => typedEndpointOf(t.spec)).map(async (t) => [t.id, await scope.targetVerification(t.id)] as const)),
  );
  return (
    <DefinitionsListPage
      title="Targets"
      newLink={{ href: "/targets/new", label: "New target" }}
      saved={typeof saved === "string" && saved ? saved : null}
      savedTestId="target-saved"
      count={rows.length}
      empty={
        <EmptyState testId="targets-empty" links={[{ href: "/targets/new", label: "New target", atLeast: "editor" }]}>
          No targets yet. A target is how an app is deployed: always-on replicas with an autoscaler (local-service) or scale-to-zero
          functions (local-function), or a real platform (kubernetes, aws-asg, aws-lambda, gcp-cloud-run, or an existing endpoint). Add one
          with “New target”, or run the demo study (<DemoCommand />
          ), which defines one of each.
        </EmptyState>
      }
      footer={
        <p className="text-2xs text-zinc-500">
          How the local kinds behave and where they differ from the real platforms: docs/local-engine.md; the platform kinds:
          docs/kubernetes.md and docs/cloud-targets.md.
        </p>
      }
    >
      <ListTable
        testId="targets-table"
        rows={rows.map((t) => ({ t, d: describe(t.kind, t.spec), proof: proofs.get(t.id) }))}
        rowKey={({ t }) => t.id}
        rowData={({ t }) => ({ "data-testid": "target-row", "data-name": t.name })}
        columns={[
          { header: "Name", className: "whitespace-nowrap font-mono font-medium", cell: ({ t }) => t.name },
          {
            header: "Kind",
            className: "whitespace-nowrap",
            cell: ({ t }) => <span className="rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-600">{t.kind}</span>,
          },
          { header: "App", className: "whitespace-nowrap font-mono text-zinc-700", cell: ({ d }) => d.app },
          {
            header: "Deployment",
            className: "font-mono text-2xs text-zinc-600",
            cell: ({ d, proof }) => (
              <>
                {d.text}
                {proof?.token && (
                  <details data-testid="target-verification" className="mt-1 text-zinc-500">
                    <summary>proof of ownership of {proof.host}</summary>
                    Unless the admin allows the host, serve {proof.wellKnownUrl} answering 200 with {proof.token}
                    {proof.dnsTxt
                      ? `, or publish a TXT record "${proof.dnsTxt.value}" on the reverse name (in-addr.arpa) of the address ${proof.dnsTxt.name} points to`
                      : ""}
                  </details>
                )}
              </>
            ),
          },
          {
            header: "Priced",
            className: "min-w-[9rem] text-2xs text-zinc-600",
            cell: ({ t }) => {
              const priced = describePricing((t.spec as { costModel?: unknown }).costModel);
              return (
                <span data-testid="target-priced" className={priced === "not priced" ? "text-zinc-400" : ""}>
                  {priced}
                </span>
              );
            },
          },
          {
            header: "Updated (UTC)",
            className: "whitespace-nowrap font-mono text-zinc-600",
            cell: ({ t }) => fmtTime(t.updatedAt.toISOString()),
          },
          {
            header: "",
            right: true,
            className: "whitespace-nowrap",
            cell: ({ t }) => (
              <span className="inline-flex items-center gap-3">
                {/* Every kind's form edits a saved spec (not a kind this build has no form for). */}
                {kindFormOf(t.kind) && <NewDefinitionLink href={`/targets/${encodeURIComponent(t.name)}/edit`} label="Edit" />}
                <DeleteDefinitionButton kind="target" id={t.id} name={t.name} />
              </span>
            ),
          },
        ]}
      />
    </DefinitionsListPage>
  );
}
