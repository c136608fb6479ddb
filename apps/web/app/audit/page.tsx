import type { Metadata } from "next";
import { EmptyState } from "@/components/empty-state";
import { PageHeader, Panel, tableCell, tableHead } from "@/components/panel";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Audit log" };

/** Who created, started, aborted, shared and revoked what, newest first. */
export default async function AuditPage() {
  const scope = await resolveWorkspace();
  const events = await scope.audit.list(500);
  return (
    <div className="space-y-3">
      <PageHeader title="Audit log" />
      <Panel title={`${events.length} latest events`} testId="audit-log">
        {events.length === 0 ? (
          <EmptyState>Nothing yet: creating, starting, aborting, sharing and revoking are written here.</EmptyState>
        ) : (
          <table className="w-full text-xs">
            <thead>
              <tr>
                <th className={tableHead}>When</th>
                <th className={tableHead}>Who</th>
                <th className={tableHead}>What</th>
                <th className={tableHead}>Subject</th>
                <th className={tableHead}>Detail</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id} className="border-t border-zinc-100">
                  <td className={`${tableCell} whitespace-nowrap`}>{e.at.toISOString().replace("T", " ").slice(0, 19)}</td>
                  <td className={tableCell}>{e.actor}</td>
                  <td className={`${tableCell} font-mono`}>{e.action}</td>
                  <td className={`${tableCell} font-mono`}>
                    {e.subjectKind} {e.subjectId.slice(0, 8)}
                  </td>
                  <td className={`${tableCell} font-mono text-zinc-500`}>{e.detail ? JSON.stringify(e.detail) : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
    </div>
  );
}
