// A workspace member's role, weakest first. Viewers read; editors also create targets, workloads,
// studies and runs and start or abort them; owners also manage members, tokens, share links and limits.
import { z } from "zod";

export const WORKSPACE_ROLES = ["viewer", "editor", "owner"] as const;
export const workspaceRoleSchema = z.enum(WORKSPACE_ROLES);
export type WorkspaceRole = z.infer<typeof workspaceRoleSchema>;

/** Whether a member with `role` may do what needs `required` (each role can do all a weaker one can). */
export const roleAllows = (role: WorkspaceRole, required: WorkspaceRole): boolean =>
  WORKSPACE_ROLES.indexOf(role) >= WORKSPACE_ROLES.indexOf(required);

/** A stored role string as a workspace role; anything unknown counts as the weakest. */
export const toWorkspaceRole = (stored: string): WorkspaceRole => workspaceRoleSchema.catch("viewer").parse(stored);
