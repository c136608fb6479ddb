// The instance's own mail (OPSBENCH_SMTP_URL, docs/self-hosting.md "Mail"): password-reset links, invitations and
// address verification, sent by the web app through the admin's mail server. It is the admin's setting, not a
// workspace's, so it does not pass the egress rule the workspaces' notification e-mail does (docs/notifications.md):
// the admin chose the server. Null when no server is set: nothing is mailed.
import type { AuthMail } from "@opsbench/db";
import nodemailer from "nodemailer";
import { env } from "@/lib/env";

const TIMEOUT_MS = 15_000;

function createInstanceMail(url: string, from: string): AuthMail {
  const transport = nodemailer.createTransport({
    url,
    name: "opsbench",
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send({ to, subject, text }) {
      const info = await transport.sendMail({ from, to, subject, text });
      if (info.rejected.length) throw new Error(`the mail server refused ${info.rejected.join(", ")}`);
    },
  };
}

export const instanceMail: AuthMail | null = env.OPSBENCH_SMTP_URL
  ? createInstanceMail(env.OPSBENCH_SMTP_URL, env.OPSBENCH_SMTP_FROM)
  : null;
