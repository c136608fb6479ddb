// Is a Google Cloud credential usable? A Cloud Run list call in its project and
// region (the key is valid and may see services). Run when
// the credential is saved and again before a deploy creates anything.
import type { CredentialSecret } from "@opsbench/core";
import { ProviderError } from "../provider";
import { gcpClients, gcpErrorMessage } from "./clients";

export async function checkGcpCredential(
  secret: Extract<CredentialSecret, { kind: "gcp" }>,
  ctx: { name?: string; endpoint?: string; region?: string; projectId?: string },
): Promise<{ identity: string }> {
  const clients = gcpClients(secret, ctx.name ?? "(unnamed)", ctx.endpoint);
  const project = ctx.projectId ?? secret.projectId;
  try {
    await clients.run.listServices(
      { parent: `projects/${project}/locations/${ctx.region ?? secret.region}`, pageSize: 1 },
      { autoPaginate: false },
    );
  } catch (err) {
    throw new ProviderError(
      `the Google Cloud credential${ctx.name ? ` "${ctx.name}"` : ""} is refused by Cloud Run (services.list in ${project}): ${gcpErrorMessage(err)}`,
    );
  } finally {
    await clients.close();
  }
  return { identity: `${JSON.parse(secret.serviceAccountKey).client_email} (${project})` };
}
