// Google Cloud clients for a run: the workspace's service-account key, its project,
// and the worker's endpoint override (the fake in the tests). The REST transport
// (`fallback`) is used everywhere, so the tests exercise what production sends; the
// key signs a self-signed JWT per request (no token exchange).
import { MetricServiceClient } from "@google-cloud/monitoring";
import { ServicesClient } from "@google-cloud/run";
import { z } from "zod";
import type { CredentialSecret } from "@opsbench/core";

type GcpCredentialSecret = Extract<CredentialSecret, { kind: "gcp" }>;
import { ProviderError, type ProviderContext } from "../provider";

const serviceAccountKey = z.looseObject({
  client_email: z.string().min(3),
  private_key: z.string().min(10),
  project_id: z.string().optional(),
});

/** The credential of the context, if it is a GCP one; else a message naming what is wrong. */
export function gcpCredentialOf(ctx: Pick<ProviderContext, "credential">, name: string): GcpCredentialSecret {
  const c = ctx.credential;
  if (!c) throw new ProviderError(`the credential "${name}" is missing: save a Google Cloud credential under that name in the workspace`);
  if (c.kind !== "gcp") throw new ProviderError(`the credential "${name}" is a ${c.kind} credential, not a Google Cloud one`);
  return c;
}

export function gcpClientOptions(secret: GcpCredentialSecret, name: string, endpoint?: string) {
  let key: z.infer<typeof serviceAccountKey>;
  try {
    key = serviceAccountKey.parse(JSON.parse(secret.serviceAccountKey));
  } catch {
    throw new ProviderError(`the credential "${name}" is not a service-account key file (JSON with client_email and private_key)`);
  }
  const target = endpoint ? new URL(endpoint) : null;
  return {
    credentials: { client_email: key.client_email, private_key: key.private_key },
    projectId: secret.projectId,
    fallback: true as const,
    ...(target ? { apiEndpoint: target.hostname, port: Number(target.port || 443), protocol: target.protocol.replace(":", "") } : {}),
  };
}

export function gcpClients(secret: GcpCredentialSecret, name: string, endpoint?: string) {
  const options = gcpClientOptions(secret, name, endpoint);
  const run = new ServicesClient(options);
  const monitoring = new MetricServiceClient(options);
  return { run, monitoring, close: () => Promise.all([run.close(), monitoring.close()]).then(() => undefined) };
}

/** A Google API error as a user-facing message: its status and message, never the request. */
export function gcpErrorMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${typeof code === "number" ? `code ${code}: ` : ""}${err.message}`;
  }
  return String(err);
}
