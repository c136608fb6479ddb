// A workspace's credentials for real platforms (docs/credentials.md): what the user gives, by kind.
// Stored encrypted (packages/db/src/workspaces/secret-box.ts), never answered back, used only by the worker.
import { z } from "zod";

const text = (max: number) => z.string().trim().min(1).max(max);

export const awsCredentialSecret = z
  .object({
    kind: z.literal("aws"),
    accessKeyId: text(128),
    secretAccessKey: text(256),
    sessionToken: text(4096).optional(),
    /** A role to assume with the keys above (STS AssumeRole); the run then acts as that role. */
    roleArn: z
      .string()
      .regex(/^arn:aws[\w-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, "an IAM role ARN (arn:aws:iam::<account>:role/<name>)")
      .optional(),
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "an AWS region such as eu-west-1"),
  })
  .strict();

export const gcpCredentialSecret = z
  .object({
    kind: z.literal("gcp"),
    /** The service account's JSON key file, as text. */
    serviceAccountKey: text(64_000).refine((s) => {
      try {
        const k = JSON.parse(s) as { type?: unknown; client_email?: unknown; private_key?: unknown };
        return k.type === "service_account" && typeof k.client_email === "string" && typeof k.private_key === "string";
      } catch {
        return false;
      }
    }, "a service account's JSON key (type service_account, with client_email and private_key)"),
    projectId: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "a Google Cloud project id"),
    region: z.string().regex(/^[a-z]+-[a-z]+\d$/, "a Google Cloud region such as europe-west1"),
  })
  .strict();

/**
 * What the owner who saves a kubernetes credential allows the runs deploying with it beyond namespaced built-in kinds
 * (docs/kubernetes.md, "Permissions"): namespaced custom resources (`customResources`), cluster-scoped objects,
 * CustomResourceDefinitions included (`clusterScoped`), and pods beyond the Pod Security Standards' baseline
 * (`privilegedPods`: privileged containers, the node's network, folders and ports; docs/security.md). All default to false.
 */
export const kubernetesCredentialAllow = z
  .object({
    customResources: z.boolean().optional(),
    clusterScoped: z.boolean().optional(),
    privilegedPods: z.boolean().optional(),
  })
  .strict();
export type KubernetesCredentialAllow = z.infer<typeof kubernetesCredentialAllow>;

export const kubernetesCredentialSecret = z
  .object({
    kind: z.literal("kubernetes"),
    /** A kubeconfig file, as YAML text. */
    kubeconfig: text(256_000),
    /** Which of its contexts to use; default its current-context. */
    context: text(253).optional(),
    /** Kinds beyond the namespaced built-in ones that runs with this credential may apply; default none. */
    allow: kubernetesCredentialAllow.optional(),
  })
  .strict();

export const credentialSecretSchema = z.discriminatedUnion("kind", [awsCredentialSecret, gcpCredentialSecret, kubernetesCredentialSecret]);
export type CredentialSecret = z.infer<typeof credentialSecretSchema>;
export type CredentialKind = CredentialSecret["kind"];
export const CREDENTIAL_KINDS = ["aws", "gcp", "kubernetes"] as const satisfies readonly CredentialKind[];

/** A credential's name, as target specs refer to it (`credential: "<name>"`). */
export const credentialName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "use lower-case letters, digits, '.', '_' or '-'");

/**
 * POST /api/v1/credentials: a name and the secret (write-only), and whether editors may deploy with it (owners
 * always may; default no; a replaced credential keeps its setting unless the field is given).
 */
export const credentialInput = z
  .object({ name: credentialName, secret: credentialSecretSchema, editorsMayDeploy: z.boolean().optional() })
  .strict();
export type CredentialInput = z.infer<typeof credentialInput>;

/** What anyone may see of a credential: never its secret. */
export const credentialListItemSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(CREDENTIAL_KINDS),
    createdAt: z.string(),
    /** When a worker last checked it against its platform. */
    checkedAt: z.string().nullable(),
    /** Whether editors may deploy with it (owners always may). */
    editorsMayDeploy: z.boolean(),
  })
  .strict();
export type CredentialListItem = z.infer<typeof credentialListItemSchema>;

/** PUT /api/v1/credentials/{id}: what an owner may change of a credential without its secret. */
export const credentialSettingsInput = z.object({ editorsMayDeploy: z.boolean() }).strict();
export type CredentialSettingsInput = z.infer<typeof credentialSettingsInput>;

/** The refusal when a member whose role is not owner names a credential editors may not deploy with. */
export const editorCredentialRefusal = (name: string, role: string) =>
  `credential "${name}" is not open to editors: an owner decides per credential whether editors may deploy with it ` +
  `(editorsMayDeploy; PUT /api/v1/credentials/{id} or Settings), and this one is for owners only (you are ${role === "editor" ? "an editor" : `a ${role}`})`;
