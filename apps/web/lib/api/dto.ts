// What the API returns for stored targets and workloads (no workspace internals).
import { redactTargetSecrets, roleAllows, type WorkspaceRole } from "@opsbench/core";

interface SpecRow {
  id: string;
  name: string;
  kind: string;
  spec: unknown;
  createdAt: Date;
  updatedAt: Date;
}

export interface SpecItem {
  id: string;
  name: string;
  kind: string;
  spec: unknown;
  createdAt: string;
  updatedAt: string;
}

/**
 * A target as the API and pages show it to a member of `role`: env names, never their values (they may be
 * credentials), nor the values of Secret objects in manifests; to a viewer no userData either (redactTargetSecrets).
 */
export const toTargetItem = (r: SpecRow, role: WorkspaceRole): SpecItem =>
  toSpecItem({ ...r, spec: redactTargetSecrets(r.spec, { canEdit: roleAllows(role, "editor") }) });

export const toSpecItem = (r: SpecRow): SpecItem => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  spec: r.spec,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});
