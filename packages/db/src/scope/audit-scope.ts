import { auditDetailSchema, type JsonValue, readStoredJson } from "@opsbench/core";
import type { Db } from "../client";
import { jsonInput } from "../json-column";

export type AuditAction =
  | "target.create"
  | "workload.create"
  | "run.start"
  | "run.external"
  | "run.abort"
  | "run.baseline"
  | "run.provenance"
  | "run.import"
  | "study.start"
  | "study.abort"
  | "share.create"
  | "share.revoke"
  | "limits.set"
  | "ceilings.set"
  | "run.delete"
  | "study.delete"
  | "target.delete"
  | "workload.delete"
  | "retention.set"
  | "credential.save"
  | "credential.delete"
  | "credential.settings"
  | "schedule.create"
  | "schedule.update"
  | "schedule.pause"
  | "schedule.resume"
  | "schedule.delete"
  | "webhook.create"
  | "webhook.update"
  | "webhook.delete"
  | "webhook.test"
  | "smtp.save"
  | "smtp.delete"
  | "run.gate-tripped"
  | "secret.save"
  | "secret.delete"
  | "workload.rename"
  | "exporter.create"
  | "exporter.update"
  | "exporter.delete";

export interface AuditEntry {
  /** Who: the member's name once accounts exist; "anonymous" until then. */
  actor: string;
  action: AuditAction;
  subjectKind: string;
  subjectId: string;
  detail?: Record<string, JsonValue>;
}

/** The workspace's audit log: who created, started, aborted, shared and revoked what. */
export function auditScope(db: Db, workspaceId: string) {
  return {
    record: async (e: AuditEntry): Promise<void> => {
      await db.auditEvent.create({
        data: {
          workspaceId,
          actor: e.actor,
          action: e.action,
          subjectKind: e.subjectKind,
          subjectId: e.subjectId,
          ...(e.detail ? { detail: jsonInput(auditDetailSchema, e.detail) } : {}),
        },
      });
    },
    /** Newest first. */
    list: async (take = 200) =>
      (await db.auditEvent.findMany({ where: { workspaceId }, orderBy: [{ at: "desc" }, { id: "desc" }], take })).map((e) => ({
        id: e.id.toString(),
        at: e.at,
        actor: e.actor,
        action: e.action,
        subjectKind: e.subjectKind,
        subjectId: e.subjectId,
        detail: e.detail === null ? null : readStoredJson(auditDetailSchema, e.detail),
      })),
  };
}
