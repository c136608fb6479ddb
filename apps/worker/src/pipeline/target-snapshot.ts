/** The target as it was when the run was queued, copied onto the run (`Run.targetSpec`). claim.ts reads it. */
export interface TargetSnapshot {
  kind: string;
  spec: unknown;
}
