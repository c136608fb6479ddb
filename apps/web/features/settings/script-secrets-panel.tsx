// The workspace's script secrets (owners only): names and dates, never a value. A run's script gets one as
// __ENV.NAME when the run names it (`opsbench run --secret NAME`); run logs show it as ***.
import type { WorkspaceScope } from "@opsbench/db";
import { Panel, tableCell, tableHead } from "@/components/panel";
import { RowButton } from "@/components/row-forms";
import { fmtTime } from "@/lib/format";
import { deleteScriptSecretAction, saveScriptSecretAction } from "./script-secret-actions";
import { NewScriptSecretForm } from "./script-secret-form";

export async function ScriptSecretsPanel({ scope }: { scope: WorkspaceScope }) {
  const secrets = await scope.scriptSecrets.list();
  return (
    <Panel title="Script secrets (given to a run's script as __ENV.NAME with --secret NAME: write-only)" testId="script-secrets">
      <NewScriptSecretForm action={saveScriptSecretAction} />
      {secrets.length === 0 ? (
        <p className="px-3 pb-3 text-xs text-zinc-500">No secrets yet.</p>
      ) : (
        <table className="w-full text-xs">
          <thead>
            <tr>
              <th className={tableHead}>Name</th>
              <th className={tableHead}>Saved</th>
              <th className={tableHead}>Changed</th>
              <th className={tableHead} />
            </tr>
          </thead>
          <tbody>
            {secrets.map((s) => (
              <tr key={s.id} data-testid="secret-row" className="border-t border-zinc-100">
                <td className={`${tableCell} font-mono`}>{s.name}</td>
                <td className={tableCell}>{fmtTime(s.createdAt)}</td>
                <td className={tableCell}>{fmtTime(s.updatedAt)}</td>
                <td className={tableCell}>
                  <RowButton action={deleteScriptSecretAction} id={s.id} label="Delete" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
