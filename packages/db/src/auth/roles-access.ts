// The workspace roles as Better Auth's organization plugin knows them: only owners manage the
// workspace itself (members, invitations); what each role may do in opsbench is in the route contracts.
import { createAccessControl } from "better-auth/plugins/access";
import { defaultStatements, ownerAc } from "better-auth/plugins/organization/access";

export const workspaceAccessControl = createAccessControl(defaultStatements);

export const workspaceRoles = {
  owner: workspaceAccessControl.newRole(ownerAc.statements),
  editor: workspaceAccessControl.newRole({}),
  viewer: workspaceAccessControl.newRole({}),
};
