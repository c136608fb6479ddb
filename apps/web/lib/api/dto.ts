// What the API returns for stored targets and workloads (no workspace internals).
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

export const toSpecItem = (r: SpecRow): SpecItem => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  spec: r.spec,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});
