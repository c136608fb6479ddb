// Status conditions as Kubernetes objects report them (metav1.Condition), read and worded the same way for every
// object opsbench waits on: a Knative Service, an OpenFaaS Function, a CRD, a custom resource of the user's.

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** The object's condition of this type, if it reports one. */
export const conditionOf = (o: { status?: { conditions?: Condition[] } } | null | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type);

/** "Ready=False (RevisionFailed: image pull)"; "no Ready yet" when the object reports none. */
export const describeCondition = (c: Condition | undefined, type = "condition") =>
  c ? `${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ""})` : ""}` : `no ${type} yet`;
