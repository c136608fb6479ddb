"use client";

import { useEffect, useRef, useState } from "react";

const FALLBACK_POLL_MS = 5000;

export type StreamState = "connecting" | "live" | "polling";

/**
 * Keeps a resource current while it is not final: server-sent events from
 * `eventsUrl` say "look again" and `url` is refetched (at most once per
 * `minGapMs`); a slow poll covers missed messages. Stops once `final`.
 * Returns the stream's state and a function that asks for a refetch now.
 */
export function useLiveResource<T>(opts: { url: string; eventsUrl: string; final: boolean; minGapMs: number; onData: (data: T) => void }) {
  const { url, eventsUrl, final, minGapMs } = opts;
  const [stream, setStream] = useState<StreamState>("connecting");
  const onData = useRef(opts.onData);
  onData.current = opts.onData;
  const kick = useRef<() => void>(() => {});

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
        const res = await fetch(url, { cache: "no-store" });
        if (res.ok && !stopped) onData.current((await res.json()) as T);
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
      const wait = Math.max(0, minGapMs - (Date.now() - lastFetch));
      timer = setTimeout(() => {
        timer = null;
        if (!stopped) void refetch();
      }, wait);
    };
    kick.current = schedule;

    const es = new EventSource(eventsUrl);
    es.addEventListener("open", () => {
      setStream("live");
      schedule(); // catch what changed between the page render and the subscription
    });
    es.addEventListener("update", schedule);
    es.addEventListener("error", () => setStream("polling")); // EventSource reconnects by itself
    const poll = setInterval(schedule, FALLBACK_POLL_MS);

    return () => {
      stopped = true;
      kick.current = () => {};
      es.close();
      clearInterval(poll);
      if (timer) clearTimeout(timer);
    };
  }, [url, eventsUrl, final, minGapMs]);

  return { stream, refetchNow: () => kick.current() };
}

/** The small "● live" label pages show while they follow a resource. */
export const streamLabel = (stream: StreamState) =>
  stream === "live" ? "● live" : stream === "polling" ? "○ reconnecting (polling)" : "○ connecting";
