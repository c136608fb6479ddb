import {
  listApiTokens,
  listMemberships,
  listPendingInvitations,
  listWorkspaceMembers,
  listWorkspaces,
  loadInstanceSettings,
} from "@opsbench/db";
import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { InviteForm, NewTokenForm } from "@/features/settings/settings-forms";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { buttonSecondary, PageHeader, Panel, tableCell, tableHead } from "@/components/panel";
import { RowButton } from "@/components/row-forms";
import { fmtTime } from "@/lib/format";
import { getAuth, getDb } from "@/lib/server/singletons";
import { currentMember, requireMember, withScope } from "@/lib/server/workspace";
import {
  createTokenAction,
  inviteAction,
  revokeTokenAction,
  setOpenSignUpAction,
  setSignUpWorkspaceAction,
  switchWorkspaceAction,
} from "@/features/settings/actions";
import { env } from "@/lib/env";
import { CeilingsPanel } from "@/features/settings/ceilings-panel";
import { CredentialsPanel } from "@/features/settings/credentials-panel";
import { ScriptSecretsPanel } from "@/features/settings/script-secrets-panel";
import { ExportersPanel } from "@/features/settings/exporters-panel";
import { NotificationsPanel } from "@/features/settings/notifications-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Settings" };

/** The signed-in account: its workspaces, its API tokens, and for owners the members and invitations. */
export default async function SettingsPage() {
  if (env.OPSBENCH_AUTH === "off") {
    return (
      <div className="space-y-4">
        <PageHeader title="Settings" />
        <p className="text-xs text-zinc-500" data-testid="auth-off">
          Sign-in is off (OPSBENCH_AUTH=off): this server is one person&apos;s, and every request acts as the owner of the
          &quot;default&quot; workspace. Start the web app with OPSBENCH_AUTH=required for accounts, roles and API tokens.
        </p>
        <CredentialsPanel scope={(await requireMember()).scope} />
        <ScriptSecretsPanel scope={(await requireMember()).scope} />
        <NotificationsPanel scope={(await requireMember()).scope} />
        <ExportersPanel scope={(await requireMember()).scope} />
        <CeilingsPanel admin />
      </div>
    );
  }
  const signedIn = await currentMember();
  if (!signedIn) redirect("/sign-in");
  const member = withScope(signedIn);
  const db = getDb();
  const memberships = await listMemberships(db, signedIn.userId);
  const tokens = member ? await listApiTokens(await getAuth(), await headers(), member.workspaceId) : [];
  const owner = member?.role === "owner";
  const people = owner && member ? await listWorkspaceMembers(db, member.workspaceId) : [];
  const invitations = owner && member ? await listPendingInvitations(db, member.workspaceId) : [];
  const settings = signedIn.instanceAdmin ? await loadInstanceSettings(db) : null;
  const workspaces = settings ? await listWorkspaces(db) : [];
  return (
    <div className="space-y-4">
      <PageHeader title="Settings" right={<SignOutButton />}>
        <span className="text-xs text-zinc-500" data-testid="signed-in-as">
          {signedIn.email}
          {member ? ` · ${member.role}` : ""}
          {signedIn.instanceAdmin ? " · instance admin" : ""}
        </span>
      </PageHeader>

      <Panel title="Workspaces">
        {memberships.length === 0 ? (
          <p className="p-3 text-xs text-zinc-500" data-testid="no-workspace">
            You belong to no workspace yet: ask a workspace owner for an invitation link.
          </p>
        ) : (
          <ul className="divide-y divide-zinc-100 text-xs">
            {memberships.map((m) => (
              <li key={m.workspace.id} className="flex items-center gap-3 px-3 py-1.5">
                <span className="font-medium">{m.workspace.name}</span>
                <span className="text-zinc-500">{m.role}</span>
                {m.workspace.id === member?.workspaceId ? (
                  <span className="ml-auto text-zinc-400">current</span>
                ) : (
                  <form action={switchWorkspaceAction} className="ml-auto">
                    <input type="hidden" name="workspaceId" value={m.workspace.id} />
                    <button type="submit" className={buttonSecondary}>
                      Switch
                    </button>
                  </form>
                )}
              </li>
            ))}
          </ul>
        )}
      </Panel>

      {member && (
        <Panel title="API tokens (for the CLI and CI: OPSBENCH_URL + OPSBENCH_TOKEN)" testId="tokens">
          <NewTokenForm action={createTokenAction} owner={owner} />
          <table className="w-full text-xs">
            <thead>
              <tr>
                <th className={tableHead}>Name</th>
                <th className={tableHead}>Starts with</th>
                <th className={tableHead}>Created</th>
                <th className={tableHead}>Last used</th>
                <th className={tableHead}>Expires</th>
                <th className={tableHead} />
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id} data-testid="token-row" className="border-t border-zinc-100">
                  <td className={tableCell}>{t.name}</td>
                  <td className={`${tableCell} font-mono`}>{t.start}…</td>
                  <td className={tableCell}>{fmtTime(t.createdAt.toISOString())}</td>
                  <td className={tableCell} data-testid="token-last-used">
                    {t.lastUsedAt ? fmtTime(t.lastUsedAt.toISOString()) : "never"}
                  </td>
                  <td className={tableCell} data-testid="token-expires">
                    {t.expiresAt ? fmtTime(t.expiresAt.toISOString()) : "never"}
                  </td>
                  <td className={tableCell}>
                    <RowButton action={revokeTokenAction} id={t.id} label="Revoke" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Panel>
      )}

      {owner && (
        <Panel title="Members" testId="members">
          <ul className="divide-y divide-zinc-100 text-xs">
            {people.map((p) => (
              <li key={p.id} className="flex gap-3 px-3 py-1.5">
                <span>{p.user.email}</span>
                <span className="text-zinc-500">{p.role}</span>
              </li>
            ))}
            {invitations.map((i) => (
              <li key={i.id} className="flex gap-3 px-3 py-1.5 text-zinc-500">
                <span>{i.email}</span>
                <span>
                  {i.role} · invited, until {fmtTime(i.expiresAt.toISOString())}
                </span>
              </li>
            ))}
          </ul>
          <InviteForm action={inviteAction} />
        </Panel>
      )}

      {owner && member && <CredentialsPanel scope={member.scope} />}

      {owner && member && <ScriptSecretsPanel scope={member.scope} />}

      {owner && member && <NotificationsPanel scope={member.scope} />}

      {owner && member && <ExportersPanel scope={member.scope} />}

      {member && <CeilingsPanel admin={signedIn.instanceAdmin} />}

      {settings && (
        <Panel title="This server" testId="instance">
          <form action={setOpenSignUpAction} className="flex items-center gap-3 p-3 text-xs">
            <span data-testid="open-sign-up">
              {settings.openSignUp
                ? "Anyone who reaches this server can create an account (it joins no workspace unless named below)."
                : "Only people with an invitation link can create an account."}
            </span>
            <input type="hidden" name="open" value={settings.openSignUp ? "false" : "true"} />
            <button type="submit" className={buttonSecondary}>
              {settings.openSignUp ? "Close sign-up" : "Open sign-up"}
            </button>
          </form>
          <form action={setSignUpWorkspaceAction} className="flex items-center gap-3 px-3 pb-3 text-xs">
            <label htmlFor="sign-up-workspace">Accounts that sign up openly join, as viewers:</label>
            <select
              id="sign-up-workspace"
              name="workspaceId"
              defaultValue={settings.signUpWorkspaceId ?? ""}
              className="rounded border border-zinc-300 px-1 py-0.5"
            >
              <option value="">no workspace</option>
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
            <button type="submit" className={buttonSecondary}>
              Save
            </button>
          </form>
        </Panel>
      )}
    </div>
  );
}
