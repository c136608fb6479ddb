// What opsbench knows about one target kind, declared once (docs/architecture.md#a-new-target-kind): everything else
// that varies by kind (the API's schemas, the provider registry, the web's forms, vCPUs, study factors) is derived from
// or checked against these definitions.
import type { z } from "zod";
import type { infraPointDetailSchema } from "../runs/infra-point-detail";
import type { CredentialKind } from "../targets/credentials";
import { kubeCpuCores } from "../targets/kubernetes-spec";

/** Where a kind's deployment runs: processes on the worker's host, a user's cluster, or a cloud platform. */
export type KindPlace = "local" | "cluster" | "cloud";

/** A target spec as a run copied it or a study pins it: read leniently, as it may be any kind's. */
export type LooseSpec = Record<string, unknown>;

/** A spec pinned at a study factor's level, or the reason the kind cannot be pinned (shown naming the target). */
export type Pinned = LooseSpec | string;

/** The infra detail keys a kind's provider records each point (runs/infra-point-detail.ts). */
export type ObservedDetail = keyof typeof infraPointDetailSchema.shape;

export interface KindDefinition<Kind extends string = string, Spec extends z.ZodType = z.ZodType> {
  kind: Kind;
  /** The spec a target of this kind gives (the API checks it; the worker parses it again before deploying). */
  spec: Spec;
  /**
   * The kind of workspace credential its spec may name (`credential`), or null when it takes none; a function when
   * the spec decides (an endpoint's link). The worker refuses a credential of another kind before deploying, and the
   * reaper visits a kind's platform with every credential of this kind.
   */
  credential: CredentialKind | null | ((spec: LooseSpec) => CredentialKind | null);
  place: KindPlace;
  /** vCPUs of one replica (instance, pod, function instance), for throughput per vCPU; null when the spec does not say. */
  vcpuPerReplica: (spec: LooseSpec) => number | null;
  /** How a study's factors pin it (docs/studies.md#factors): each answers the pinned spec or why it cannot be. */
  pin: {
    /** Fixed replicas: min = max = n. */
    replicas: (spec: LooseSpec, n: number) => Pinned;
    /** n nodes; `replicas` is the level's replicas when the study pins both. */
    nodes: (spec: LooseSpec, n: number, replicas: number | undefined) => Pinned;
  };
  /** What a run's price is taken from besides requests and the replica timeline (docs/cost.md); the worker reads these. */
  cost: {
    /**
     * Where billed time is read: "platform": the platform's own periods (their running totals, the last one over the
     * window: billed time, instance seconds, an ALB's capacity units); "meter": the provider's per-second meter
     * (billed time, last minus first); "none": requests times mean latency, or the replica timeline.
     */
    billedTime: "platform" | "meter" | "none";
    /** The CPU one pod asks for, in cores, by which a node-packing model packs pods; absent: the kind states none. */
    podCpu?: (spec: LooseSpec) => number | null;
    /** The nodes its pods are held to, priced as that many nodes throughout; absent: the kind holds none. */
    heldNodes?: (spec: LooseSpec) => number | null;
  };
  /**
   * The infra detail its provider records beside replicas and CPU; the run page's series read the fields it names
   * (packages/db runs/run-infra.ts: per-instance or per-replica CPU, replica ids, desired or ready, the queue's refusals).
   */
  observes: readonly ObservedDetail[];
  /**
   * Its words: the web's kind picker and describe-kind show the label and description; `replicas` is what its
   * replica count counts, in the plural ("replicas", "instances"), where reports print it.
   */
  words: { label: string; description: string; replicas: string };
}

/** A kind's definition, its literal name and spec schema kept in the type. */
export const defineKind = <const Kind extends string, Spec extends z.ZodType>(definition: KindDefinition<Kind, Spec>) => definition;

/** The reason a kind whose nodes opsbench does not size gives for a nodes factor. */
export const noNodes = (kind: string) => () => `a ${kind} target has no nodes opsbench sizes`;

/** A spec without some keys (a pinned count replaces a range). */
export const without = (spec: LooseSpec, ...keys: string[]): LooseSpec =>
  Object.fromEntries(Object.entries(spec).filter(([k]) => !keys.includes(k)));

const positive = (v: unknown) => (typeof v === "number" && v > 0 ? v : null);
/** Leniently read numbers and CPU quantities of a stored spec. */
export const read = {
  positive,
  /** Cores as a number or a Kubernetes CPU quantity ("500m"). */
  cores: (v: unknown) => (typeof v === "string" ? kubeCpuCores(v) : positive(v)),
  /** A resources object's field. */
  resources: (spec: LooseSpec): LooseSpec =>
    typeof spec.resources === "object" && spec.resources !== null ? (spec.resources as LooseSpec) : {},
};
