// Credentials by role (docs/security.md): an owner decides per credential whether editors may deploy with it.
// A target saved, or a run or study created, by a member who is not an owner and names a credential closed to
// editors is refused here with a 403 naming the credential; the worker checks again before deploying.
import { credentialNameOf, editorCredentialRefusal, type TargetInput } from "@opsbench/core";
import { NotFoundError } from "@opsbench/db";
import { ApiError } from "@/lib/api/errors";
import type { SignedInMember } from "./workspace";

/** A target as a request names it: an inline spec, or the name of a saved target (one that does not exist names no credential). */
type TargetRef = string | Pick<TargetInput, "spec">;

async function credentialOf(member: SignedInMember, ref: TargetRef): Promise<string | null> {
  if (typeof ref !== "string") return credentialNameOf(ref.spec);
  try {
    return credentialNameOf((await member.scope.targets.byName(ref)).spec);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** Throws a 403 naming the first credential these targets name that the member may not deploy with; `path` of each ref. */
export async function assertCredentialsOpenTo(member: SignedInMember, refs: { ref: TargetRef; path: string }[]): Promise<void> {
  if (member.role === "owner") return;
  for (const { ref, path } of refs) {
    const name = await credentialOf(member, ref);
    if (!name) continue;
    const [closed] = await member.scope.credentials.closedTo(member.role, [name]);
    if (closed) {
      const message = editorCredentialRefusal(closed, member.role);
      throw new ApiError("forbidden", message, [{ path, message }]);
    }
  }
}

/** Who asks for a run or study, as the worker will check it: the member's user id (none when sign-in is off). */
export const requesterOf = (member: SignedInMember): string | null => member.userId || null;
