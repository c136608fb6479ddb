// The first account of a server with sign-in: made through a one-time setup link, printed here when the web app
// starts and no account exists yet (each start makes a new link; only the newest works). `opsbench admin
// setup-link` makes one on demand, `opsbench admin create` the account itself.
import { hasAccounts, makeSetupToken } from "@opsbench/db";
import { env } from "@/lib/env";
import { getDb } from "./singletons";

export async function printSetupLink(): Promise<void> {
  try {
    const db = getDb();
    if (await hasAccounts(db)) return;
    const secret = await makeSetupToken(db);
    if (!secret) return;
    const base = env.OPSBENCH_PUBLIC_URL?.replace(/\/+$/, "") ?? `http://localhost:${process.env.PORT ?? "3000"}`;
    console.log(
      `opsbench: no account yet. Create the first one (the instance admin) at ${base}/sign-up?setup=${secret} ` +
        "(works once; a restart or `opsbench admin setup-link` makes a new one)",
    );
  } catch (err) {
    console.error(`opsbench: could not make the setup link (${(err as Error).message}); run \`opsbench admin setup-link\``);
  }
}
