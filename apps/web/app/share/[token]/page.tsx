import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { forCharts } from "@/features/compare/compare-data";
import { CompareView } from "@/features/compare/compare-view";
import { fmtTime } from "@/lib/format";
import { loadPublicShare } from "@/features/share/public-share";

export const dynamic = "force-dynamic";

// The token is in the URL: keep it out of search engines and Referer headers.
export const metadata: Metadata = { title: "Shared results", robots: { index: false, follow: false }, referrer: "no-referrer" };

type Props = { params: Promise<{ token: string }> };

const KIND_LABEL = { run: "a run", study: "a study", comparison: "a comparison" } as const;

/** A share link's page: read-only, no account, no links into the app; only the link's subject. */
export default async function SharePage({ params }: Props) {
  const share = await loadPublicShare((await params).token);
  if (!share) notFound();
  const c = share.comparison;
  return (
    <article data-testid="share-page" data-kind={share.kind} className="space-y-3">
      <header className="border-b border-zinc-200 pb-2">
        <p className="text-2xs uppercase tracking-wide text-zinc-500">opsbench · shared read-only view of {KIND_LABEL[share.kind]}</p>
        <h1 className="text-base font-semibold">{share.title ?? (c.groups.map((g) => g.label).join(" vs ") || "Shared results")}</h1>
        <p className="text-xs text-zinc-500">
          As of {fmtTime(c.generatedAt)} UTC · <span data-testid="verdict-version">verdict method v{c.verdictVersion}</span>
          {share.sharedUnderVerdictVersion !== c.verdictVersion ? (
            <span data-testid="verdict-version-changed" className="text-amber-700">
              {" "}
              (shared under {share.sharedUnderVerdictVersion === null ? "an earlier method" : `v${share.sharedUnderVerdictVersion}`}: the
              verdicts were decided again by today&apos;s method)
            </span>
          ) : null}
        </p>
      </header>
      <CompareView data={forCharts(c)} mode="share" />
    </article>
  );
}
