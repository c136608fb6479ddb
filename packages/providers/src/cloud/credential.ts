// The credential shapes the cloud providers read from ProviderContext.credential.
// Declared here to match core's credential store (credentialSecretSchema) until it lands.
export interface AwsCredentialSecret {
  kind: "aws";
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  roleArn?: string;
  region: string;
}
export interface GcpCredentialSecret {
  kind: "gcp";
  /** The service-account key file, as JSON text. */
  serviceAccountKey: string;
  projectId: string;
  region: string;
}
export interface KubernetesCredentialSecret {
  kind: "kubernetes";
  kubeconfig: string;
  context?: string;
}
export type CredentialSecret = AwsCredentialSecret | GcpCredentialSecret | KubernetesCredentialSecret;
