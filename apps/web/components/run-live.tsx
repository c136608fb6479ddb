"use client";

import { isFinalRunStatus } from "@opsbench/core";
import type { RunView } from "@opsbench/db";
import { useEffect, useState } from "react";
import { RunDetails } from "./run-details";

const MIN_REFETCH_GAP_MS = 1000;
const FALLBACK_POLL_MS = 5000;

/**
 * The run page, kept current while the run is not final: server-sent events
 * say "look again", and the page refetches the RunView (at most ~1/s); a slow
 * poll covers missed messages. Everything stops once the status is final.
 */
export function RunLive({ initial }: { initial: RunView }) {
  const [run, setRun] = useState(initial);
  const [stream, setStream] = useState<"connecting" | "live" | "polling">("connecting");
  const final = isFinalRunStatus(run.status);
  const id = run.id;

  useEffect(() => {
    if (final) return;
    let stopped = false;
    let inFlight = false;
    let pending = false;
    let lastFetch = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;

    const refetch = async () => {
      if (inFlight) {
        pending = true;
        return;
      }
      inFlight = true;
      lastFetch = Date.now();
      try {
        const res = await fetch(`/api/v1/runs/${id}`, { cache: "no-store" });
        if (res.ok && !stopped) setRun((await res.json()) as RunView);
      } catch {
        /* offline for a moment; the next update or poll tries again */
      } finally {
        inFlight = false;
        if (pending && !stopped) {
          pending = false;
          schedule();
        }
      }
    };
    const schedule = () => {
      if (stopped || timer) return;
      const wait = Math.max(0, MIN_REFETCH_GAP_MS - (Date.now() - lastFetch));
      timer = setTimeout(() => {
        timer = null;
        if (!stopped) void refetch();
      }, wait);
    };

    const es = new EventSource(`/api/v1/runs/${id}/events`);
    es.addEventListener("open", () => {
      setStream("live");
      schedule(); // catch what changed between the page render and the subscription
    });
    es.addEventListener("update", schedule);
    es.addEventListener("error", () => setStream("polling")); // EventSource reconnects by itself
    const poll = setInterval(schedule, FALLBACK_POLL_MS);

    return () => {
      stopped = true;
      es.close();
      clearInterval(poll);
      if (timer) clearTimeout(timer);
    };
  }, [id, final]);

  const liveLabel = final ? null : (
    <span data-testid="run-live" className={`text-[11px] ${stream === "live" ? "text-emerald-600" : "text-zinc-500"}`}>
      {stream === "live" ? "● live" : stream === "polling" ? "○ reconnecting (polling)" : "○ connecting"}
    </span>
  );
  return <RunDetails run={run} liveLabel={liveLabel} />;
}
