// Ctrl-C or SIGTERM while a command follows a study: the study is aborted (the run under way is
// stopped and torn down), so nothing keeps loading a target after the command has gone.

/** Whatever can abort a study: the workspace scope (database) or the server's API. */
export interface StudyAborter {
  studies: { abort(studyId: string): Promise<unknown> };
}

export interface StudyInterruptOptions {
  /** Says what happens, on the command's own output. */
  say: (m: string) => void;
  /** What the first signal prints. */
  notice: string;
  /** A second signal leaves at once (exit 130) instead of waiting for the teardown. */
  secondSignalExits: boolean;
}

export class StudyInterrupt {
  interrupted = false;
  private studyId: string | null = null;
  private readonly onSignal = () => {
    if (this.interrupted) {
      if (this.options.secondSignalExits) process.exit(130);
      return;
    }
    this.interrupted = true;
    this.options.say(this.options.notice);
    if (this.studyId) this.abort(this.studyId).catch((err) => this.options.say(`could not abort: ${(err as Error).message}`));
  };

  constructor(
    private readonly scope: StudyAborter,
    private readonly options: StudyInterruptOptions,
  ) {
    process.on("SIGINT", this.onSignal);
    process.on("SIGTERM", this.onSignal);
  }

  /** The study now being followed; aborted at once when a signal came before it existed. */
  async follow(studyId: string): Promise<void> {
    this.studyId = studyId;
    if (this.interrupted) await this.abort(studyId);
  }

  /** Stops listening (the command is done, or hands the signals to something else). */
  release(): void {
    process.off("SIGINT", this.onSignal);
    process.off("SIGTERM", this.onSignal);
  }

  private abort(studyId: string) {
    return this.scope.studies.abort(studyId);
  }
}
