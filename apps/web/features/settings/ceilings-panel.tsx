// The instance's ceilings: what no workspace's limits go above. The instance admin changes them; every other
// member sees them, so an owner knows how high their workspace's limits may be set.
import { loadInstanceCeilings } from "@opsbench/db";
import { CeilingsForm } from "@/features/settings/ceilings-form";
import { Panel, tableCell, tableHead } from "@/components/panel";
import { getDb } from "@/lib/server/singletons";
import { setCeilingsAction } from "./ceiling-actions";

export async function CeilingsPanel({ admin }: { admin: boolean }) {
  const ceilings = await loadInstanceCeilings(getDb());
  return (
    <Panel title="Instance ceilings (every workspace's limits are at most these)" testId="ceilings">
      {admin ? (
        <CeilingsForm action={setCeilingsAction} ceilings={{ ...ceilings }} />
      ) : (
        <table className="w-full text-xs">
          <thead>
            <tr>
              <th className={tableHead}>Limit</th>
              <th className={tableHead}>Ceiling</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(ceilings).map(([name, value]) => (
              <tr key={name} className="border-t border-zinc-100">
                <td className={`${tableCell} font-mono`}>{name}</td>
                <td className={tableCell}>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
