// The workspace's credentials for real platforms (owners only): names, kinds and dates, never a value.
import type { WorkspaceScope } from "@opsbench/db";
import { NewCredentialForm } from "@/features/settings/credential-form";
import { Panel, tableCell, tableHead } from "@/components/panel";
import { RowButton, RowToggle } from "@/components/row-forms";
import { fmtTime } from "@/lib/format";
import { deleteCredentialAction, saveCredentialAction, setEditorsMayDeployAction } from "./credential-actions";

export async function CredentialsPanel({ scope }: { scope: WorkspaceScope }) {
  const credentials = await scope.credentials.list();
  return (
    <Panel title="Credentials (kubeconfigs, AWS and Google Cloud keys: write-only, used by the worker)" testId="credentials">
      <NewCredentialForm action={saveCredentialAction} />
      <table className="w-full text-xs">
        <thead>
          <tr>
            <th className={tableHead}>Name</th>
            <th className={tableHead}>Kind</th>
            <th className={tableHead}>Saved</th>
            <th className={tableHead}>Last checked</th>
            <th className={tableHead}>Editors may deploy</th>
            <th className={tableHead} />
          </tr>
        </thead>
        <tbody>
          {credentials.map((c) => (
            <tr key={c.id} data-testid="credential-row" className="border-t border-zinc-100">
              <td className={tableCell}>{c.name}</td>
              <td className={tableCell}>{c.kind}</td>
              <td className={tableCell}>{fmtTime(c.createdAt)}</td>
              <td className={tableCell}>{c.checkedAt ? fmtTime(c.checkedAt) : "never"}</td>
              <td className={tableCell} data-testid="credential-editors">
                <RowToggle
                  action={setEditorsMayDeployAction}
                  id={c.id}
                  field="editorsMayDeploy"
                  on={c.editorsMayDeploy}
                  state={["yes", "no (owners only)"]}
                  turn={["Close to editors", "Open to editors"]}
                />
              </td>
              <td className={tableCell}>
                <RowButton action={deleteCredentialAction} id={c.id} label="Delete" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
