import type { Metadata } from "next";
import { ShareList, type ShareListItem } from "@/features/share/share-list";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Shared links" };

/** The workspace's share links, with Revoke. */
export default async function SharesPage() {
  const scope = await resolveWorkspace();
  const items: ShareListItem[] = (await scope.shares.list()).map((l) => ({
    id: l.id,
    kind: l.kind,
    title: l.title,
    subject: l.subject,
    createdAt: l.createdAt.toISOString(),
    revokedAt: l.revokedAt?.toISOString() ?? null,
  }));
  return (
    <section className="rounded-md border border-zinc-200 bg-white">
      <div className="border-b border-zinc-200 px-3 py-2">
        <h1 className="text-xs font-medium text-zinc-700">Shared links ({items.filter((i) => !i.revokedAt).length} live)</h1>
        <p className="text-2xs text-zinc-500">
          Anyone with a live link sees its run, study or comparison read-only, without an account. A revoked link answers 404.
        </p>
      </div>
      <ShareList initial={items} />
    </section>
  );
}
