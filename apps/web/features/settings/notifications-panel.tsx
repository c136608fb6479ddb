// The workspace's notifications (owners only; docs/notifications.md): its webhook endpoints with "Send test", the
// SMTP settings for e-mail, and the delivery log (each attempt's answer).
import { NOTIFICATION_EVENT_LABELS } from "@opsbench/core";
import type { WorkspaceScope } from "@opsbench/db";
import { buttonSecondary, Panel, tableCell, tableHead } from "@/components/panel";
import { RowButton, RowToggle } from "@/components/row-forms";
import { fmtTime } from "@/lib/format";
import { NewWebhookForm, SendTestButton, SmtpForm } from "./notification-forms";
import {
  createWebhookAction,
  deleteSmtpAction,
  deleteWebhookAction,
  saveSmtpAction,
  setWebhookEnabledAction,
  testWebhookAction,
} from "./notification-actions";

const STATUS_CLASS: Record<string, string> = {
  delivered: "text-emerald-700",
  failed: "text-red-700",
  pending: "text-amber-700",
};

export async function NotificationsPanel({ scope }: { scope: WorkspaceScope }) {
  const [webhooks, smtp, deliveries] = await Promise.all([
    scope.notifications.listWebhooks(),
    scope.notifications.smtp(),
    scope.notifications.deliveries({ limit: 25 }),
  ]);
  return (
    <Panel
      title="Notifications (webhooks and e-mail on run failed, gate tripped, change detected, schedule skipped)"
      testId="notifications"
    >
      <div id="notifications" />
      <h3 className="px-3 pt-3 text-xs font-medium text-zinc-700">Webhooks</h3>
      <NewWebhookForm action={createWebhookAction} />
      <table className="w-full text-xs">
        <thead>
          <tr>
            <th className={tableHead}>URL</th>
            <th className={tableHead}>Events</th>
            <th className={tableHead}>Format</th>
            <th className={tableHead}>Enabled</th>
            <th className={tableHead}>Actions</th>
          </tr>
        </thead>
        <tbody>
          {webhooks.length === 0 && (
            <tr>
              <td className={`${tableCell} text-zinc-500`} colSpan={5}>
                No webhook yet.
              </td>
            </tr>
          )}
          {webhooks.map((w) => (
            <tr key={w.id} data-testid="webhook-row" className="border-t border-zinc-100 align-top">
              <td className={`${tableCell} max-w-xs break-all font-mono`}>{w.url}</td>
              <td className={tableCell}>{w.events.map((e) => NOTIFICATION_EVENT_LABELS[e]).join(", ")}</td>
              <td className={tableCell}>{w.format === "slack" ? "Slack" : "JSON"}</td>
              <td className={tableCell}>
                <RowToggle
                  action={setWebhookEnabledAction}
                  id={w.id}
                  field="enabled"
                  on={w.enabled}
                  state={["yes", "no"]}
                  turn={["Disable", "Enable"]}
                />
              </td>
              <td className={`${tableCell} flex flex-wrap gap-2`}>
                <SendTestButton action={testWebhookAction} id={w.id} />
                <RowButton action={deleteWebhookAction} id={w.id} label="Delete" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3 className="border-t border-zinc-200 px-3 pt-3 text-xs font-medium text-zinc-700">E-mail (the workspace&apos;s SMTP server)</h3>
      <SmtpForm action={saveSmtpAction} current={smtp} />
      {smtp && (
        <form action={deleteSmtpAction} className="px-3 pb-3">
          <button type="submit" className={buttonSecondary}>
            Remove e-mail settings
          </button>
        </form>
      )}

      <h3 className="border-t border-zinc-200 px-3 pt-3 text-xs font-medium text-zinc-700">Delivery log (newest first)</h3>
      <table className="w-full text-xs" data-testid="delivery-log">
        <thead>
          <tr>
            <th className={tableHead}>When</th>
            <th className={tableHead}>Event</th>
            <th className={tableHead}>To</th>
            <th className={tableHead}>Status</th>
            <th className={tableHead}>Attempts</th>
            <th className={tableHead}>Last answer</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.length === 0 && (
            <tr>
              <td className={`${tableCell} text-zinc-500`} colSpan={6}>
                Nothing sent yet.
              </td>
            </tr>
          )}
          {deliveries.map((d) => (
            <tr key={d.id} data-testid="delivery-row" className="border-t border-zinc-100 align-top">
              <td className={tableCell}>{fmtTime(d.createdAt)}</td>
              <td className={tableCell} title={d.summary}>
                {d.event}
              </td>
              <td className={`${tableCell} max-w-xs break-all font-mono`}>{d.destination}</td>
              <td className={`${tableCell} font-medium ${STATUS_CLASS[d.status] ?? ""}`} data-testid="delivery-status">
                {d.status}
              </td>
              <td className={tableCell}>{d.attempts}</td>
              <td className={`${tableCell} max-w-sm break-words`}>
                {d.lastResponseCode !== null ? `${d.lastResponseCode}` : ""}
                {d.lastError ? `${d.lastResponseCode !== null ? ": " : ""}${d.lastError}` : d.lastResponseCode === null ? "-" : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
