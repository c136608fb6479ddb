// Viewers read target specs (issue 20): on main they received a kubernetes target's `manifests` with its Secret
// objects' data, and an aws-asg target's `userData`, verbatim. Now Secret values are hidden from every reader, like
// env values, and userData from anyone who may not edit; an edit that sends the marker back keeps what is stored.
import { REDACTED_ENV_VALUE } from "@opsbench/core";
import { type Auth, defaultWorkspaceId, type Db } from "@opsbench/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSignedInWeb } from "../test-identity";
import { type Caller, call, newMember, openMembers, sessionOf } from "./limits-members";

const { web, owner } = await startSignedInWeb();
const ownerCaller = { headers: { authorization: `Bearer ${owner.token}` } };
let db: Db;
let auth: Auth;
let viewer: Caller;
let editor: Caller;

const SECRETS = ["c2VjcmV0LWRhdGEtdmFsdWU=", "string-data-secret", "annotation-secret", "comment-secret", "userdata-secret"];

const manifests = `apiVersion: v1
kind: Secret
metadata:
  name: app-db # comment-secret
  annotations:
    note: annotation-secret
type: Opaque
data:
  password: c2VjcmV0LWRhdGEtdmFsdWU=
stringData:
  token: string-data-secret
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: nginx:1.27
`;

const kubeTarget = { name: "kube-secrets", kind: "kubernetes", spec: { credential: "kube", manifests } };
// A chart's values carry credentials as often as env does (the review's viewer read a `password` in clear).
const HELM_SECRETS = ["helm-values-password", "helm-values-token"];
const helmTarget = {
  name: "helm-values",
  kind: "kubernetes",
  spec: {
    credential: "kube",
    helm: {
      chart: Buffer.from("a packaged chart's bytes").toString("base64"),
      values: {
        image: { tag: "1.27" },
        replicaCount: 2,
        postgresql: { auth: { password: "helm-values-password", database: "shop" } },
        extraEnv: [{ name: "API_TOKEN", value: "helm-values-token" }],
        apiToken: "helm-values-token",
      },
    },
  },
};
const asgTarget = {
  name: "asg-userdata",
  kind: "aws-asg",
  spec: {
    credential: "aws",
    region: "us-east-1",
    imageId: "ami-0123456789abcdef0",
    userData: "#!/bin/sh\necho DB_PASSWORD=userdata-secret >> /etc/app.env\n",
  },
};

beforeAll(async () => {
  ({ db, auth } = await openMembers());
  const ws = await defaultWorkspaceId(db);
  viewer = await newMember(db, auth, "viewer@redaction.test", ws, "viewer");
  editor = await newMember(db, auth, "editor@redaction.test", ws, "editor");
  for (const t of [kubeTarget, asgTarget, helmTarget])
    expect((await call(web, ownerCaller, "POST", "/api/v1/targets", t)).status).toBe(201);
});
afterAll(() => db.$disconnect());

const specOf = (list: Array<{ name: string; spec: Record<string, unknown> }>, name: string) => list.find((t) => t.name === name)!.spec;

describe("a kubernetes target's helm values shown to members", () => {
  const helmOf = (list: Array<{ name: string; spec: Record<string, unknown> }>) =>
    specOf(list, "helm-values").helm as { chart: string; values: Record<string, unknown> };

  it("a viewer sees every value hidden (keys stay) and not the chart", async () => {
    const res = await call(web, viewer, "GET", "/api/v1/targets");
    expect(res.status).toBe(200);
    for (const secret of HELM_SECRETS) expect(res.text).not.toContain(secret);
    const helm = helmOf(res.body);
    expect(helm.values).toEqual({
      image: { tag: REDACTED_ENV_VALUE },
      replicaCount: REDACTED_ENV_VALUE,
      postgresql: { auth: { password: REDACTED_ENV_VALUE, database: REDACTED_ENV_VALUE } },
      extraEnv: [{ name: REDACTED_ENV_VALUE, value: REDACTED_ENV_VALUE }],
      apiToken: REDACTED_ENV_VALUE,
    });
    expect(helm.chart).toBe(REDACTED_ENV_VALUE);
    // The targets page (the viewer's browser session) lists it without any of them either.
    const page = await call(web, { headers: await sessionOf(db, auth, web, viewer) }, "GET", "/targets");
    expect(page.status).toBe(200);
    expect(page.text).toContain("helm-values");
    for (const secret of HELM_SECRETS) expect(page.text).not.toContain(secret);
  });

  it("an editor sees the chart and plain values, not those under a key naming a credential; a save with the markers keeps them", async () => {
    const res = await call(web, editor, "GET", "/api/v1/targets");
    expect(res.text).not.toContain("helm-values-password");
    const helm = helmOf(res.body);
    expect(helm.chart).toBe(helmTarget.spec.helm.chart);
    // Only the key tells a credential apart: a value under a plain key (extraEnv's value) is the editor's to read.
    expect(helm.values).toEqual({
      ...helmTarget.spec.helm.values,
      postgresql: { auth: { password: REDACTED_ENV_VALUE, database: REDACTED_ENV_VALUE } },
      apiToken: REDACTED_ENV_VALUE,
    });
    const edited = { ...helm, values: { ...helm.values, replicaCount: 3 } };
    const saved = await call(web, editor, "POST", "/api/v1/targets", { ...helmTarget, spec: { ...helmTarget.spec, helm: edited } });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.text).not.toContain("helm-values-password");
    const stored = (await db.target.findFirstOrThrow({ where: { name: "helm-values" } })).spec as typeof helmTarget.spec;
    expect(stored.helm.values).toEqual({ ...helmTarget.spec.helm.values, replicaCount: 3 });
  });
});

describe("target specs shown to members", () => {
  it("a viewer's GET of the targets shows neither the Secret's values nor userData, only the marker", async () => {
    const res = await call(web, viewer, "GET", "/api/v1/targets");
    expect(res.status).toBe(200);
    for (const secret of SECRETS) expect(res.text).not.toContain(secret);
    const kube = specOf(res.body, "kube-secrets");
    expect(kube.manifests).toContain(`password: ${REDACTED_ENV_VALUE}`);
    expect(kube.manifests).toContain(`token: ${REDACTED_ENV_VALUE}`);
    expect(kube.manifests).toContain("image: nginx:1.27");
    expect(specOf(res.body, "asg-userdata").userData).toBe(REDACTED_ENV_VALUE);
    // The home page lists the targets too (a page: the viewer's browser session).
    const page = await call(web, { headers: await sessionOf(db, auth, web, viewer) }, "GET", "/");
    expect(page.status).toBe(200);
    expect(page.text).toContain("kube-secrets");
    for (const secret of SECRETS) expect(page.text).not.toContain(secret);
  });

  it("an editor sees userData (they edit it) but not the Secret's values", async () => {
    const res = await call(web, editor, "GET", "/api/v1/targets");
    expect(specOf(res.body, "asg-userdata").userData).toBe(asgTarget.spec.userData);
    for (const secret of SECRETS.slice(0, 4)) expect(res.text).not.toContain(secret);
  });

  it("an editor's save that sends the markers back keeps the stored values and takes the changes", async () => {
    const shown = (await call(web, viewer, "GET", "/api/v1/targets")).body;
    const kube = specOf(shown, "kube-secrets");
    const edited = (kube.manifests as string).replace("replicas: 1", "replicas: 2");
    const saved = await call(web, editor, "POST", "/api/v1/targets", { ...kubeTarget, spec: { ...kube, manifests: edited } });
    expect(saved.status).toBe(201);
    for (const secret of SECRETS.slice(0, 3)) expect(saved.text).not.toContain(secret);
    const asg = specOf(shown, "asg-userdata");
    expect((await call(web, editor, "POST", "/api/v1/targets", { ...asgTarget, spec: asg })).status).toBe(201);

    const stored = await db.target.findMany({ where: { name: { in: ["kube-secrets", "asg-userdata"] } } });
    const kubeSpec = stored.find((t) => t.name === "kube-secrets")!.spec as { manifests: string };
    expect(kubeSpec.manifests).toContain("password: c2VjcmV0LWRhdGEtdmFsdWU=");
    expect(kubeSpec.manifests).toContain("token: string-data-secret");
    expect(kubeSpec.manifests).toContain("note: annotation-secret");
    expect(kubeSpec.manifests).toContain("replicas: 2");
    expect(kubeSpec.manifests).not.toContain(REDACTED_ENV_VALUE);
    expect((stored.find((t) => t.name === "asg-userdata")!.spec as { userData: string }).userData).toBe(asgTarget.spec.userData);
  });
});
