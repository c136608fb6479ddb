// The workspace's results exporters (owners only; docs/exports.md): where each finished run's per-second series go
// (Prometheus remote write, OTLP over HTTP), and the log of the runs sent (each attempt's answer).
import type { WorkspaceScope } from "@opsbench/db";
import Link from "next/link";
import { Panel, tableCell, tableHead } from "@/components/panel";
import { RowButton, RowToggle } from "@/components/row-forms";
import { fmtTime } from "@/lib/format";
import { createExporterAction, deleteExporterAction, setExporterEnabledAction } from "./exporter-actions";
import { NewExporterForm } from "./exporter-form";

const STATUS_CLASS: Record<string, string> = {
  delivered: "text-emerald-700",
  failed: "text-red-700",
  pending: "text-amber-700",
};
const KIND_LABEL: Record<string, string> = { "prometheus-remote-write": "Prometheus remote write", "otlp-http": "OTLP/HTTP" };
const AUTH_LABEL: Record<string, string> = { none: "none", bearer: "bearer token", basic: "basic auth" };

export async function ExportersPanel({ scope }: { scope: WorkspaceScope }) {
  const [exporters, exports] = await Promise.all([scope.exporters.list(), scope.exporters.exports({ limit: 25 })]);
  return (
    <Panel title="Results export (each finished run's per-second series to Prometheus or OpenTelemetry)" testId="exporters">
      <div id="exporters" />
      <NewExporterForm action={createExporterAction} />
      <table className="w-full text-xs">
        <thead>
          <tr>
            <th className={tableHead}>Name</th>
            <th className={tableHead}>Protocol</th>
            <th className={tableHead}>URL</th>
            <th className={tableHead}>Auth</th>
            <th className={tableHead}>Enabled</th>
            <th className={tableHead}>Actions</th>
          </tr>
        </thead>
        <tbody>
          {exporters.length === 0 && (
            <tr>
              <td className={`${tableCell} text-zinc-500`} colSpan={6}>
                No exporter yet: runs stay in opsbench.
              </td>
            </tr>
          )}
          {exporters.map((e) => (
            <tr key={e.id} data-testid="exporter-row" className="border-t border-zinc-100 align-top">
              <td className={tableCell}>{e.name}</td>
              <td className={tableCell}>{KIND_LABEL[e.kind] ?? e.kind}</td>
              <td className={`${tableCell} max-w-xs break-all font-mono`}>{e.url}</td>
              <td className={tableCell}>
                {AUTH_LABEL[e.auth] ?? e.auth}
                {e.username ? ` (${e.username})` : ""}
              </td>
              <td className={tableCell}>
                <RowToggle
                  action={setExporterEnabledAction}
                  id={e.id}
                  field="enabled"
                  on={e.enabled}
                  state={["yes", "no"]}
                  turn={["Disable", "Enable"]}
                />
              </td>
              <td className={tableCell}>
                <RowButton action={deleteExporterAction} id={e.id} label="Delete" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3 className="border-t border-zinc-200 px-3 pt-3 text-xs font-medium text-zinc-700">Export log (newest first)</h3>
      <table className="w-full text-xs" data-testid="export-log">
        <thead>
          <tr>
            <th className={tableHead}>When</th>
            <th className={tableHead}>Run</th>
            <th className={tableHead}>To</th>
            <th className={tableHead}>Status</th>
            <th className={tableHead}>Attempts</th>
            <th className={tableHead}>Sent</th>
            <th className={tableHead}>Last answer</th>
          </tr>
        </thead>
        <tbody>
          {exports.length === 0 && (
            <tr>
              <td className={`${tableCell} text-zinc-500`} colSpan={7}>
                Nothing exported yet.
              </td>
            </tr>
          )}
          {exports.map((x) => (
            <tr key={x.id} data-testid="export-row" className="border-t border-zinc-100 align-top">
              <td className={tableCell}>{fmtTime(x.createdAt)}</td>
              <td className={`${tableCell} font-mono`}>
                <Link href={`/runs/${x.runId}`} className="underline">
                  {x.runId.slice(0, 8)}
                </Link>
              </td>
              <td className={tableCell}>{x.exporterName}</td>
              <td className={`${tableCell} font-medium ${STATUS_CLASS[x.status] ?? ""}`} data-testid="export-status">
                {x.status}
              </td>
              <td className={tableCell}>{x.attempts}</td>
              <td className={tableCell}>{x.series !== null ? `${x.series} series, ${x.samples} samples` : "-"}</td>
              <td className={`${tableCell} max-w-sm break-words`}>
                {x.lastResponseCode !== null ? `${x.lastResponseCode}` : ""}
                {x.lastError ? `${x.lastResponseCode !== null ? ": " : ""}${x.lastError}` : x.lastResponseCode === null ? "-" : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
