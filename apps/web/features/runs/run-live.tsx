"use client";

import { isFinalRunStatus } from "@opsbench/core";
import type { RunSurroundings, RunView } from "@opsbench/db";
import { useState } from "react";
import { RoleGate } from "@/components/auth/role-gate";
import { AbortButton } from "@/components/abort-button";
import { DeleteButton } from "@/components/delete-button";
import { RunDetails } from "./run-details";
import { streamLabel, useLiveResource } from "@/components/use-live-resource";

/**
 * The run page, kept current while the run is not final: server-sent events
 * say "look again", and the page refetches the RunView (at most ~1/s); a slow
 * poll covers missed messages. Everything stops once the status is final.
 */
export function RunLive({ initial, surroundings }: { initial: RunView; surroundings: RunSurroundings | null }) {
  const [run, setRun] = useState(initial);
  const final = isFinalRunStatus(run.status);
  const { stream, refetchNow } = useLiveResource<RunView>({
    url: `/api/v1/runs/${run.id}`,
    eventsUrl: `/api/v1/runs/${run.id}/events`,
    final,
    minGapMs: 1000,
    onData: setRun,
  });
  // Delete sits in the header's overflow menu (never the first button); a run under way is aborted instead.
  const menu = final ? (
    <RoleGate atLeast="editor">
      <DeleteButton
        url={`/api/v1/runs/${run.id}`}
        confirmText="Delete this run with its per-second series, events and share links? This cannot be undone."
        testId="run-delete"
        then="/"
      />
    </RoleGate>
  ) : undefined;
  const liveLabel = final ? undefined : (
    <span className="inline-flex items-center gap-3">
      <span data-testid="run-live" className={`text-2xs ${stream === "live" ? "text-emerald-600" : "text-zinc-500"}`}>
        {streamLabel(stream)}
      </span>
      {/* A study's runs are aborted with their study. */}
      {run.studyId === null && (
        <AbortButton
          url={`/api/v1/runs/${run.id}/abort`}
          confirmText="Abort this run? Its load test is stopped and its target torn down."
          label="Abort run"
          testId="run-abort"
          onAborted={refetchNow}
        />
      )}
    </span>
  );
  return <RunDetails run={run} liveLabel={liveLabel} surroundings={surroundings} menu={menu} />;
}
