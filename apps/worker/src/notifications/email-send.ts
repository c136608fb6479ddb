// One attempt at an e-mail delivery through the workspace's SMTP server (nodemailer): connected to the address the
// egress rule admitted (TLS checks the certificate against the server's name), bounded by time-outs.
import { smtpServerUrl } from "@opsbench/core";
import nodemailer from "nodemailer";
import { admittedAddress, type EgressPolicy } from "./egress";
import type { SendOutcome } from "./webhook-send";

export const SMTP_TIMEOUT_MS = 15_000;

export interface SmtpTarget {
  host: string;
  port: number;
  security: "tls" | "starttls" | "none";
  from: string;
  to: string[];
  username: string | null;
  password: string | null;
}

export async function sendEmail(
  smtp: SmtpTarget,
  mail: { subject: string; text: string },
  policy: EgressPolicy,
  opts: { timeoutMs?: number } = {},
): Promise<SendOutcome> {
  const pinned = await admittedAddress("SMTP server", smtpServerUrl(smtp.host, smtp.port), policy);
  const timeout = opts.timeoutMs ?? SMTP_TIMEOUT_MS;
  const transport = nodemailer.createTransport({
    host: pinned.address,
    port: smtp.port,
    secure: smtp.security === "tls",
    requireTLS: smtp.security === "starttls",
    ignoreTLS: smtp.security === "none",
    // The certificate is checked against the name the workspace gave, not the address connected to.
    tls: { servername: smtp.host },
    name: "opsbench",
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    ...(smtp.username ? { auth: { user: smtp.username, pass: smtp.password ?? "" } } : {}),
  });
  try {
    const info = await transport.sendMail({ from: smtp.from, to: smtp.to, subject: mail.subject, text: mail.text });
    const code = Number(/^(\d{3})/.exec(info.response ?? "")?.[1] ?? 250);
    if (info.rejected.length) return { ok: false, code, error: `the server refused ${info.rejected.join(", ")}` };
    return { ok: true, code, error: null };
  } catch (err) {
    const e = err as Error & { responseCode?: number };
    return { ok: false, code: e.responseCode ?? null, error: e.message.slice(0, 300) };
  } finally {
    transport.close();
  }
}
