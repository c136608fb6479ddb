// Every target kind, by kind: the one list of kinds. Adding a kind is a file here and a line in TARGET_KINDS; the
// compiler then asks for its provider (packages/providers/src/index.ts) and its form (apps/web/features/targets/
// target-form/kind-forms.ts) (docs/architecture.md#a-new-target-kind).
import { awsAsgKind } from "./aws-asg";
import { awsLambdaKind } from "./aws-lambda";
import type { CredentialKind } from "../targets/credentials";
import type { KindDefinition, LooseSpec, ObservedDetail } from "./define-kind";
import { endpointKind } from "./endpoint";
import { gcpCloudRunKind } from "./gcp-cloud-run";
import { kubernetesKind } from "./kubernetes";
import { localFunctionKind } from "./local-function";
import { localServiceKind } from "./local-service";

export * from "./define-kind";

/** Every built-in kind, by kind, in the order the web's picker offers them. */
export const TARGET_KINDS = {
  "local-service": localServiceKind,
  "local-function": localFunctionKind,
  kubernetes: kubernetesKind,
  "aws-asg": awsAsgKind,
  "aws-lambda": awsLambdaKind,
  "gcp-cloud-run": gcpCloudRunKind,
  endpoint: endpointKind,
} satisfies Record<string, KindDefinition>;
export type TargetKind = keyof typeof TARGET_KINDS;
// Each kind is filed under its own name.
TARGET_KINDS satisfies { [K in TargetKind]: KindDefinition<K> };

/** Every kind's spec schema, by kind (the registered kinds' too, once registered). */
export const targetSpecs: { readonly [K in TargetKind]: (typeof TARGET_KINDS)[K]["spec"] } = Object.fromEntries(
  Object.values(TARGET_KINDS).map((k) => [k.kind, k.spec]),
) as { [K in TargetKind]: (typeof TARGET_KINDS)[K]["spec"] };

const catalog = new Map<string, KindDefinition>(Object.values(TARGET_KINDS).map((k): [string, KindDefinition] => [k.kind, k]));
let closed = false;

/**
 * Every kind at run time, built-in first. The first read closes the catalog: the schemas derived from it (targetInput,
 * the API's target item) are built then, once, so a kind registered later would be refused by them.
 */
export function targetKinds(): readonly KindDefinition[] {
  closed = true;
  return [...catalog.values()];
}

/** A kind's definition at run time (a stored run's kind may be one this build no longer has). */
export const kindDefinition = (kind: string): KindDefinition | undefined => catalog.get(kind);

/**
 * Adds a kind that is not built in, before the catalog is first read. Only the test of the kind catalog
 * (tests/test-kind.test.ts) registers one: a real kind is a file here and a line in TARGET_KINDS.
 */
export function registerTargetKind(definition: KindDefinition): void {
  if (closed) throw new Error(`target kind "${definition.kind}" registered after the catalog was read`);
  if (catalog.has(definition.kind)) throw new Error(`target kind "${definition.kind}" is already in the catalog`);
  catalog.set(definition.kind, definition);
  Object.assign(targetSpecs, { [definition.kind]: definition.spec });
}

/** vCPUs per replica of a target (kind + spec as a run copied them), or null when the spec does not say or the kind is unknown. */
export function vcpuPerReplica(kind: string, spec: unknown): number | null {
  return kindDefinition(kind)?.vcpuPerReplica(looseSpec(spec)) ?? null;
}

const looseSpec = (spec: unknown): LooseSpec => (typeof spec === "object" && spec !== null ? (spec as LooseSpec) : {});

/**
 * The kind of workspace credential a target may name (kind + spec as a run copied them), or null when it takes none;
 * throws for a kind that is not in the catalog.
 */
export function credentialKindOf(kind: string, spec: unknown): CredentialKind | null {
  const { credential } = kindOf(kind);
  return typeof credential === "function" ? credential(looseSpec(spec)) : credential;
}

/**
 * The credential kind with which a kind's platform is visited whatever the spec says (the reaper opens every
 * workspace credential of it), or null when the spec decides or the kind takes none.
 */
export function platformCredentialKind(kind: string): CredentialKind | null {
  const credential = kindDefinition(kind)?.credential ?? null;
  return typeof credential === "function" ? null : credential;
}

/** How a run of this kind is priced (kinds/define-kind.ts `cost`); throws for a kind that is not in the catalog. */
export const kindCost = (kind: string): KindDefinition["cost"] => kindOf(kind).cost;

/** The infra detail a kind's points carry; empty for a kind this build does not have (a stored run's). */
export const observedDetail = (kind: string): ReadonlySet<ObservedDetail> => new Set(kindDefinition(kind)?.observes ?? []);

function kindOf(kind: string): KindDefinition {
  const definition = catalog.get(kind);
  if (!definition) throw new Error(`no target kind "${kind}" in the catalog`);
  return definition;
}

/** A kind's spec schema at run time; throws for a kind that is not in the catalog. */
export const targetSpecOf = (kind: string): KindDefinition["spec"] => kindOf(kind).spec;
