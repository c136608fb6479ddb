// The packed CLI's entry (npm run cli:pack bundles it into one file): remote mode only, with OPSBENCH_URL and
// OPSBENCH_TOKEN. The local mode (demo, worker, the database) stays in the opsbench repository.
import { loadRemote } from "./remote-env";
import { INGEST_USAGE, ingestCommand } from "./ingest-command";
import { isRemoteCommand, REMOTE_USAGE, remoteCommand } from "./remote-main";
import { asksForHelp, asksForVersion, helpText } from "./help";
import { exitWith, UsageError } from "./usage-error";

declare const OPSBENCH_CLI_VERSION: string;

const USAGE = `usage (with OPSBENCH_URL and OPSBENCH_TOKEN, an API token from the server's settings page):
${REMOTE_USAGE}
${INGEST_USAGE}
  opsbench COMMAND --help                                     the usage of one command (exit 0)
  opsbench --version                                          the CLI's version`;

const say = (m: string) => process.stderr.write(`${m}\n`);

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === "help") {
    console.log(USAGE);
    return 0;
  }
  if (asksForVersion(argv)) {
    console.log(OPSBENCH_CLI_VERSION);
    return 0;
  }
  if (asksForHelp(argv)) {
    console.log(helpText(USAGE, argv));
    return 0;
  }
  // A stock k6's results, with the run's own ingest token (no API token needed).
  if (command === "ingest") return ingestCommand(argv.slice(1), { say });
  if (!isRemoteCommand(argv))
    throw new UsageError(
      `"${argv.join(" ")}" is not a command of the installed CLI (demo, worker and the local database are in the opsbench repository)`,
    );
  const remote = loadRemote();
  if (!remote) throw new UsageError("set OPSBENCH_URL (the opsbench server) and OPSBENCH_TOKEN (an API token)");
  return remoteCommand(remote, argv, { say, out: (m) => console.log(m) });
}

exitWith(main(process.argv.slice(2)), USAGE, say);
