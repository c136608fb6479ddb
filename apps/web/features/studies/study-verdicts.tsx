"use client";

// The study's verdicts on its page, once it is final: the comparison of its cells
// (GET /api/v1/comparisons?study=<id>, the same the compare page shows), the
// primary metric's card first, the family, then the descriptive rows apart.
import type { MetricVerdict } from "@opsbench/core";
import Link from "next/link";
import { useEffect, useState } from "react";
import { VerdictsPanel } from "@/features/compare/compare-verdicts";

type Loaded = { state: "loading" } | { state: "ok"; verdicts: MetricVerdict[] } | { state: "error"; message: string };

export function StudyVerdicts({ studyId }: { studyId: string }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  useEffect(() => {
    const abort = new AbortController();
    fetch(`/api/v1/comparisons?study=${encodeURIComponent(studyId)}`, { signal: abort.signal })
      .then(async (res) => {
        const body = (await res.json()) as { verdicts?: MetricVerdict[]; error?: { message?: string } };
        setLoaded(
          res.ok && body.verdicts
            ? { state: "ok", verdicts: body.verdicts }
            : { state: "error", message: body.error?.message ?? `the comparison answered ${res.status}` },
        );
      })
      .catch((err: unknown) => {
        if (!abort.signal.aborted) setLoaded({ state: "error", message: err instanceof Error ? err.message : String(err) });
      });
    return () => abort.abort();
  }, [studyId]);

  const heading = (
    <>
      Verdicts: targets within each workload, against the workload&apos;s first (difference, 95% interval){" "}
      <Link href={`/compare?study=${studyId}`} className="ml-1 font-normal text-blue-600 hover:underline">
        set the margin, charts
      </Link>
    </>
  );
  if (loaded.state === "ok") return <VerdictsPanel verdicts={loaded.verdicts} heading={heading} testId="study-verdicts" />;
  return (
    <section
      data-testid="study-verdicts"
      data-state={loaded.state}
      className="rounded-md border border-zinc-200 bg-white px-3 py-2 text-xs"
    >
      <h2 className="font-medium text-zinc-700">{heading}</h2>
      <p className={loaded.state === "error" ? "mt-1 text-amber-800" : "mt-1 text-zinc-400"}>
        {loaded.state === "error" ? `No verdicts: ${loaded.message}` : "Comparing the cells…"}
      </p>
    </section>
  );
}
