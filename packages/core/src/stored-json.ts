// One schema for every JSON column (prisma/schema.prisma): packages/db parses
// what it reads and what it writes with these, so no caller casts a stored value.
import { z } from "zod";
import { comparisonViewSchema } from "./compare/comparison-view-schema";
import { runPageSeriesSchema, runRollupWindowsSchema } from "./compare/run-rollup";
import { costModel } from "./cost/cost-model";
import { infraPointDetailSchema } from "./runs/infra-point-detail";
import { provenanceLabelsSchema } from "./runs/provenance";
import { thresholdSourcesSchema } from "./k6/k6-merged-thresholds";
import { loadAdmission } from "./load-hosts/load-admission";
import { k6SummarySchema, runSummarySchema } from "./runs/run-summary";
import { shareSubjectSchema } from "./shares/share-subject";
import { plannedOrderSchema, studyCellsSchema } from "./studies/study-cells";
import { studyInput } from "./studies/study-spec";
import { targetDefinitionSchema, targetSnapshotSchema } from "./kinds/target-schemas";
import { validityFlags } from "./runs/validity-flags";
import { workloadSpec } from "./workloads/workload-spec";
import { deliveryAttemptsSchema, notificationEventSchema } from "./notifications/notification-events";
import { exportAttemptsSchema } from "./exports/export-series";
import { scriptEnvSchema } from "./workloads/script-env";

/** Any JSON value (what a JSON column can hold). */
export const jsonValueSchema = z.json();
export type JsonValue = z.infer<typeof jsonValueSchema>;

/**
 * What a step produced (run_steps.detail), e.g. a deployment and its endpoints.
 * `state` is what teardown needs, saved as soon as the provider has it.
 */
export const stepDetailSchema = z.looseObject({ state: z.unknown().optional() });
export type StepDetail = z.infer<typeof stepDetailSchema>;

/** Structured data of a run event (run_events.data): free-form JSON. */
export const runEventDataSchema = jsonValueSchema;

/** What an audit event adds to who did what (audit_events.detail): names and numbers of the moment. */
export const auditDetailSchema = z.record(z.string(), jsonValueSchema);

/** Each JSON column and its schema, by "Model.field". A target's spec is read together with its kind: { kind, spec }. */
export const STORED_JSON_SCHEMAS = {
  "Target.spec": targetDefinitionSchema,
  "Workload.spec": workloadSpec,
  "Study.cells": studyCellsSchema,
  "Study.plannedOrder": plannedOrderSchema,
  "Run.flags": validityFlags,
  "Run.targetSpec": targetSnapshotSchema,
  "Run.workloadSpec": workloadSpec,
  "Run.summary": runSummarySchema,
  "Run.k6Summary": k6SummarySchema,
  "Run.loadAdmission": loadAdmission,
  "Run.labels": provenanceLabelsSchema,
  "Run.scriptEnv": scriptEnvSchema,
  "RunSegment.k6Summary": k6SummarySchema,
  "RunSegment.thresholds": thresholdSourcesSchema,
  "RunStep.detail": stepDetailSchema,
  "InfraPoint.detail": infraPointDetailSchema,
  "RunEvent.data": runEventDataSchema,
  "ShareLink.subject": shareSubjectSchema,
  "PriceCatalog.model": costModel,
  "AuditEvent.detail": auditDetailSchema,
  "RunRollup.windows": runRollupWindowsSchema,
  "RunRollup.pageSeries": runPageSeriesSchema,
  "ComparisonCacheEntry.view": comparisonViewSchema,
  "Schedule.studyDefinition": studyInput,
  "NotificationDelivery.payload": notificationEventSchema,
  "NotificationDelivery.attemptLog": deliveryAttemptsSchema,
  "ResultsExport.attemptLog": exportAttemptsSchema,
} as const;

/** A stored value, or null when it does not match its schema (a bad row must not break a page; the reader decides what null means). */
export function readStoredJson<S extends z.ZodType>(schema: S, json: unknown): z.output<S> | null {
  const r = schema.safeParse(json);
  return r.success ? r.data : null;
}

/** The schema type a JSON column's writer takes (so packages/db need not depend on zod itself). */
export type StoredJsonSchema = z.ZodType;
export type StoredJsonInput<S extends StoredJsonSchema> = z.input<S>;

/** A value about to be stored: as JSON (what JSON.stringify keeps, as the database would), checked against its schema. */
export function toStoredJson<S extends StoredJsonSchema>(schema: S, value: StoredJsonInput<S>): JsonValue {
  return jsonValueSchema.parse(asJson(schema.parse(asJson(value))));
}

const asJson = (value: unknown): unknown => {
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
};
