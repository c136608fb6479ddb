// `opsbench admin`: the installer's commands for a server with sign-in (OPSBENCH_AUTH=required). The first account
// is never made by whoever visits first: either a one-time setup link (setup-link) opens the sign-up page for it,
// or the account is made here (create). Both need only the database (DATABASE_URL or POSTGRES_*), and create also
// OPSBENCH_AUTH_SECRET when the web app is given one.
import { parseArgs } from "node:util";
import { loadEnv } from "./env";
import { withSecretFiles } from "@opsbench/core/local-services";
import { createDb, createFirstAccount, loadInstanceSettings, makeSetupToken, storedAuthSecret } from "@opsbench/db";

export const ADMIN_USAGE = `  opsbench admin setup-link [--url URL]                      print a one-time link that makes the first account (the instance admin)
  opsbench admin create --email EMAIL [--name NAME]           make the first account; password from OPSBENCH_ADMIN_PASSWORD or stdin`;

interface Io {
  say: (m: string) => void;
  usageError: (m: string) => Error;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new Error(
      'give the password on stdin (e.g. `read -rs P; printf %s "$P" | opsbench admin create ...`) or in OPSBENCH_ADMIN_PASSWORD',
    );
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

function parsing<T>(io: Io, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw io.usageError((err as Error).message);
  }
}

/** The server's database: DATABASE_URL, or its parts (POSTGRES_HOST...) as the compose services give them. */
const databaseUrl = (_io: Io): string => loadEnv().DATABASE_URL;

export async function adminCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "setup-link") {
    const { values } = parsing(io, () => parseArgs({ args: rest, strict: true, options: { url: { type: "string" } } }));
    const base = (values.url ?? process.env.OPSBENCH_PUBLIC_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
    const db = createDb(databaseUrl(io), { max: 1 });
    try {
      const secret = await makeSetupToken(db);
      if (!secret) {
        io.say("opsbench admin setup-link: this server has its instance admin already; sign in, and invite people from Settings");
        return 2;
      }
      console.log(`${base}/sign-up?setup=${secret}`);
      io.say("The link works once, and only until a newer one is made (by this command or a web app restart).");
      return 0;
    } finally {
      await db.$disconnect();
    }
  }
  if (sub === "create") {
    const { values } = parsing(io, () =>
      parseArgs({ args: rest, strict: true, options: { email: { type: "string" }, name: { type: "string" } } }),
    );
    if (!values.email) throw io.usageError("opsbench admin create needs --email EMAIL");
    const password = withSecretFiles(process.env).OPSBENCH_ADMIN_PASSWORD ?? (await readStdin());
    if (password.length < 10) throw io.usageError("the password must have 10 characters or more");
    const db = createDb(databaseUrl(io), { max: 2 });
    try {
      if ((await loadInstanceSettings(db)).adminUserId) {
        io.say("opsbench admin create: this server has its instance admin already; sign in, and invite people from Settings");
        return 2;
      }
      const secret = withSecretFiles(process.env).OPSBENCH_AUTH_SECRET ?? (await storedAuthSecret(db));
      // Loaded here only: Better Auth costs every other command's start about 0.4 s of CPU.
      const { createAuth } = await import("@opsbench/db/auth");
      const auth = createAuth(db, { secret });
      await createFirstAccount(auth, db, { email: values.email, password, name: values.name });
      io.say(`${values.email} is the instance admin and owner of the "default" workspace; sign in with it.`);
      return 0;
    } finally {
      await db.$disconnect();
    }
  }
  throw io.usageError(`unknown command "admin ${sub ?? ""}" (known: admin setup-link, admin create)`);
}
