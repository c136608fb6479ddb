// What this worker executes now, in one place: the runs and studies its heartbeat lists and the reconciler leaves
// alone, and an abort for each job under way, which shutdown pulls all at once (a run ends ABORTED after teardown,
// a load segment stops its k6, a study stops after its run under way).
export function inFlightRegistry() {
  /** The runs the pipeline executes (it adds and removes them itself: PipelineDeps.live) and the studies. */
  const live = { runs: new Set<string>(), studies: new Set<string>() };
  /** An abort per job under way, by key; `listedRun`: a run the heartbeat lists for it (a load segment's). */
  const aborts = new Map<string, { abort: AbortController; listedRun?: string }>();
  const stopStudies = new AbortController();
  return {
    live,
    /** Runs `work` with an abort signal of its own, pulled at shutdown. */
    async abortable<T>(key: string, work: (signal: AbortSignal) => Promise<T>, listedRun?: string): Promise<T> {
      const abort = new AbortController();
      aborts.set(key, { abort, ...(listedRun ? { listedRun } : {}) });
      try {
        return await work(abort.signal);
      } finally {
        aborts.delete(key);
      }
    },
    /** Runs a study, listed while it executes; every study shares the one stop signal. */
    async study<T>(studyId: string, work: (stop: AbortSignal) => Promise<T>): Promise<T> {
      live.studies.add(studyId);
      try {
        return await work(stopStudies.signal);
      } finally {
        live.studies.delete(studyId);
      }
    },
    /** The runs the heartbeat lists: those the pipeline executes and those this worker generates load for. */
    runIds: () => [...new Set([...live.runs, ...[...aborts.values()].flatMap((a) => (a.listedRun ? [a.listedRun] : []))])],
    studyIds: () => [...live.studies],
    abortAll() {
      for (const { abort } of aborts.values()) abort.abort();
      stopStudies.abort();
    },
  };
}
export type InFlight = ReturnType<typeof inFlightRegistry>;
