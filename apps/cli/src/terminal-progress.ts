// One live line at the bottom of the terminal: rewritten in place while something
// long goes on (a build, a run), then replaced by a permanent line. When the
// output is not a terminal (a log, a test, CI), live updates are dropped and
// only permanent lines are written, so the output stays short; NO_COLOR or TERM=dumb
// drop them too (they are the CLI's only escape sequences).
export interface LiveLine {
  /** Replaces the live line (terminals only). */
  update(text: string): void;
  /** Clears the live line and writes a permanent one. */
  say(text: string): void;
  /** Whether live updates are shown at all. */
  readonly live: boolean;
}

/**
 * Whether escape sequences (the live line's cursor moves) may be written to `stream`: a terminal, and neither
 * NO_COLOR (https://no-color.org: set and not empty) nor TERM=dumb. The CLI writes no colours; these are its only escapes.
 */
export function escapesAllowed(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== "dumb";
}

/** What the live line writes to: stderr, or any stream that says whether it is a terminal. */
export interface LiveStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export function liveLine(stream: LiveStream = process.stderr): LiveLine {
  const live = escapesAllowed(stream);
  let shown = false;
  const clear = () => {
    if (shown) stream.write("\r\x1b[K");
    shown = false;
  };
  return {
    live,
    update(text) {
      if (!live) return;
      const width = stream.columns ? stream.columns - 1 : 120;
      stream.write(`\r\x1b[K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      shown = true;
    },
    say(text) {
      clear();
      stream.write(`${text}\n`);
    },
  };
}

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** "0:42" */
export const clock = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

/** Shows a spinner and the elapsed time on the live line until `work` settles. */
export async function withSpinner<T>(line: LiveLine, label: string, work: Promise<T>): Promise<T> {
  if (!line.live) return work;
  const started = Date.now();
  let i = 0;
  const tick = () => line.update(`${label} ${SPINNER[i++ % SPINNER.length]} ${clock((Date.now() - started) / 1000)}`);
  tick();
  const timer = setInterval(tick, 250);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    line.update("");
  }
}
