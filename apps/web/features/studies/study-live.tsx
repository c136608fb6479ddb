"use client";

import { isFinalStudyStatus } from "@opsbench/core";
import type { StudyView } from "@opsbench/db";
import { useCallback, useEffect, useState } from "react";
import { AbortButton } from "@/components/abort-button";
import { DeleteButton } from "@/components/delete-button";
import { isStudyFinal, StudyDetails } from "./study-details";
import { streamLabel, useLiveResource } from "@/components/use-live-resource";
import { RoleGate } from "@/components/auth/role-gate";

/** Counts the ETA down between refetches, so it does not sit still for seconds at a time. */
function withLiveEta(study: StudyView, fetchedAt: number, now: number): StudyView {
  const eta = study.progress.etaSeconds;
  if (eta === null) return study;
  return { ...study, progress: { ...study.progress, etaSeconds: Math.max(0, Math.round(eta - (now - fetchedAt) / 1000)) } };
}

/**
 * The study page, kept current until every run is final: server-sent events say
 * "look again" (a run started or finished, the status changed) and the page
 * refetches the StudyView (at most every 1.5 s); a slow poll covers missed
 * messages and the progress of a run under way.
 */
export function StudyLive({ initial }: { initial: StudyView }) {
  const [study, setStudy] = useState(initial);
  const [fetchedAt, setFetchedAt] = useState(() => Date.now());
  const [now, setNow] = useState(() => Date.now());
  const final = isStudyFinal(study);
  const onData = useCallback((s: StudyView) => {
    setStudy(s);
    setFetchedAt(Date.now());
  }, []);
  const { stream, refetchNow } = useLiveResource<StudyView>({
    url: `/api/v1/studies/${study.id}`,
    eventsUrl: `/api/v1/studies/${study.id}/events`,
    final,
    minGapMs: 1500,
    onData,
  });
  useEffect(() => {
    if (final) return;
    const clock = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(clock);
  }, [final]);

  const liveLabel = final ? null : (
    <span data-testid="study-live" className={`text-2xs ${stream === "live" ? "text-emerald-600" : "text-zinc-500"}`}>
      {streamLabel(stream)}
    </span>
  );
  return (
    <StudyDetails
      study={final ? study : withLiveEta(study, fetchedAt, now)}
      liveLabel={liveLabel}
      actions={
        isFinalStudyStatus(study.status) ? (
          <RoleGate atLeast="editor">
            <DeleteButton
              url={`/api/v1/studies/${study.id}`}
              confirmText={`Delete the study "${study.name}" with its ${study.progress.total} run(s), their series and share links? This cannot be undone.`}
              testId="study-delete"
              then="/studies"
            />
          </RoleGate>
        ) : (
          <RoleGate atLeast="editor">
            <AbortButton
              url={`/api/v1/studies/${study.id}/abort`}
              confirmText={`Abort the study "${study.name}"? The run under way is stopped and torn down, and the ${
                study.progress.total - study.progress.finished
              } run(s) not finished will not run.`}
              label="Abort study"
              testId="study-abort"
              onAborted={refetchNow}
            />
          </RoleGate>
        )
      }
    />
  );
}
