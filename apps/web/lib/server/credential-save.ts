// Saving a credential: sealed here (the web app holds OPSBENCH_SECRET_KEY to write, never to read), checked by a
// worker against its platform, stored only when the check passes. Nothing of the secret is ever answered or logged.
import { type CredentialInput, type CredentialListItem, validateKubeconfig } from "@opsbench/core";
import { SecretKeyError, type WorkspaceScope } from "@opsbench/db";
import { CredentialCheckUnavailable } from "@opsbench/jobs";
import { ApiError } from "@/lib/api/errors";
import { env } from "@/lib/env";
import { getCredentialChecker } from "./singletons";

export async function saveCheckedCredential(scope: WorkspaceScope, input: CredentialInput): Promise<CredentialListItem> {
  // A kubeconfig is parsed and judged here first (core targets/kubeconfig.ts): one naming a file, a command, a proxy...
  // is refused before it is sealed or sent to a worker. The worker judges it again, and its server against the
  // load-host policy (OPSBENCH_LOAD_ALLOWED_HOSTS is the worker's), before its check sends one request.
  if (input.secret.kind === "kubernetes") {
    const verdict = validateKubeconfig(input.secret.kubeconfig, input.secret.context);
    if (!verdict.ok) {
      const message = `credential "${input.name}" (kubernetes) was refused: ${verdict.message}`;
      throw new ApiError("invalid_input", message, [{ path: "secret.kubeconfig", message: verdict.message }]);
    }
  }
  let sealed: string;
  try {
    sealed = scope.credentials.seal(input.name, input.secret, env.OPSBENCH_SECRET_KEY);
  } catch (err) {
    if (err instanceof SecretKeyError) throw new ApiError("internal", `credentials cannot be saved on this server: ${err.message}`);
    throw err;
  }
  let result: Awaited<ReturnType<ReturnType<typeof getCredentialChecker>["check"]>>;
  try {
    result = await getCredentialChecker().check({ workspaceId: scope.workspaceId, name: input.name, sealed });
  } catch (err) {
    if (err instanceof CredentialCheckUnavailable)
      throw new ApiError("internal", `credential "${input.name}" was not checked: ${err.message}`);
    throw err;
  }
  if (!result.ok) {
    const message = `credential "${input.name}" (${input.secret.kind}) was refused: ${result.message}`;
    throw new ApiError("invalid_input", message, [{ path: "secret", message: result.message }]);
  }
  return scope.credentials.save({
    name: input.name,
    kind: input.secret.kind,
    sealed,
    checkedAt: new Date(),
    ...(input.editorsMayDeploy === undefined ? {} : { editorsMayDeploy: input.editorsMayDeploy }),
  });
}
