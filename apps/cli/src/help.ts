// `opsbench COMMAND --help` (or -h): the usage of that command alone, exit 0; `opsbench --version`. The usage text
// is the one the CLI prints on a usage error, cut into its commands' blocks, so a command's help and its usage on
// an error cannot drift apart. No database module: the packed CLI holds this.

/** Whether the arguments ask for help (anywhere among them, as `run --target x --help` does). */
export const asksForHelp = (argv: readonly string[]) => argv.some((a) => a === "--help" || a === "-h");

/** Whether the arguments ask for the version. */
export const asksForVersion = (argv: readonly string[]) => argv[0] === "--version" || argv[0] === "-V" || argv[0] === "version";

/**
 * The blocks of `usage` about `command` (its first word: run, runs, compare, study...): a block is a line starting
 * "  opsbench <command>" or naming it after a " | " (one line lists several commands), or a note such as "  run
 * and compare take --baseline, ..." whose words before "take" name it, each with the lines indented under it.
 * Null when none is about it.
 */
export function commandHelp(usage: string, command: string): string | null {
  const blocks: string[][] = [];
  for (const line of usage.split("\n")) {
    if (/^ {2}\S/.test(line)) blocks.push([line]);
    else if (/^ {3,}\S/.test(line)) blocks.at(-1)?.push(line);
  }
  const escaped = command.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const names = (first: string) => {
    if (new RegExp(`^ {2}opsbench ${escaped}(?=\\s|$)`).test(first)) return true;
    if (new RegExp(`\\| ${escaped} `).test(first)) return true;
    const note = /^ {2}([\w ,]+?) take /.exec(first);
    return note ? note[1]!.split(/[ ,]+/).includes(command) : false;
  };
  const mine = blocks.filter((b) => names(b[0]!));
  return mine.length ? `usage:\n${mine.map((b) => b.join("\n")).join("\n")}` : null;
}

/** What `--help` prints: the command's help, or the whole usage when no command (or an unknown one) is named. */
export function helpText(usage: string, argv: readonly string[]): string {
  const command = argv.find((a) => !a.startsWith("-"));
  return (command && commandHelp(usage, command)) || usage;
}
