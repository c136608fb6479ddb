// The "New target" form for the platform kinds in a real browser, signed in (OPSBENCH_AUTH=required):
// with a credential of each platform saved first, one target of each kind made through the form; the
// spec the API answers is what was typed (with the schema's defaults); a wrong value shows the API's
// message next to its field and saves nothing.
import { type CredentialSecret, type KubernetesSpec, type TargetKind, targetSpecs } from "@opsbench/core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openTestStack, testSecretKey } from "../../../tests/helpers";
import { startSignedInWeb, type TestIdentity } from "../../../tests/test-identity";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let browser: Browser;
let web: string;
let owner: TestIdentity;

const SECRETS: Record<string, CredentialSecret> = {
  "aws-main": { kind: "aws", accessKeyId: "AKIATEST", secretAccessKey: "not-a-real-secret", region: "eu-west-1" },
  "gcp-main": {
    kind: "gcp",
    serviceAccountKey: JSON.stringify({ type: "service_account", client_email: "a@b.iam", private_key: "k" }),
    projectId: "opsbench-test",
    region: "europe-west1",
  },
  "kube-main": { kind: "kubernetes", kubeconfig: "apiVersion: v1\nkind: Config\n" },
};

/** Saves a credential as a worker does once it checked it. */
async function saveCredential(name: string) {
  const secret = SECRETS[name]!;
  await stack.scope.credentials.save({
    name,
    kind: secret.kind,
    sealed: stack.scope.credentials.seal(name, secret, testSecretKey()),
    checkedAt: new Date(),
  });
}

beforeAll(async () => {
  ({ web, owner } = await startSignedInWeb());
  stack = await openTestStack({ worker: false });
  // The gcp one comes in the first test, after the form was seen without one.
  for (const name of ["aws-main", "kube-main"]) await saveCredential(name);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function newTargetPage(kind: TargetKind): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  await context.addCookies([{ ...owner.sessionCookie, url: web }]);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${web}/targets/new`);
  await page.getByTestId("target-kind").selectOption(kind);
  return { page, errors };
}

/** Types into the boxes by spec path (a select is chosen, a box filled). */
async function fill(page: Page, values: Record<string, string>) {
  for (const [path, value] of Object.entries(values)) {
    const box = page.locator(`[name="${path}"]`);
    if ((await box.evaluate((el) => el.tagName)) === "SELECT") await box.selectOption(value);
    else await box.fill(value);
  }
}

/** The target as the API answers it, or undefined. */
async function apiTarget(name: string): Promise<{ kind: string; spec: unknown } | undefined> {
  const res = await fetch(`${web}/api/v1/targets`, { headers: { authorization: `Bearer ${owner.token}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as Array<{ name: string; kind: string; spec: unknown }>).find((t) => t.name === name);
}

/** Saves, expects the API's message next to the field at `path`, and that nothing was saved. */
async function expectRefused(page: Page, name: string, path: string, message: string | RegExp) {
  await page.getByTestId("target-save").click();
  const shown = page.locator(`[data-field="spec.${path}"] [data-testid="error-spec.${path}"]`);
  await shown.waitFor();
  expect(await shown.textContent()).toMatch(message);
  expect(await apiTarget(name)).toBeUndefined();
}

async function save(page: Page, name: string) {
  await page.getByTestId("target-save").click();
  await page.waitForURL(new RegExp(`/targets\\?saved=${name}$`));
}

/** From the targets list (where `save` left the page), the target's Edit link: the form with its values. */
async function openEdit(page: Page, name: string) {
  await page.locator(`[data-testid="target-row"][data-name="${name}"]`).getByRole("link", { name: "Edit" }).click();
  await page.waitForURL(`${web}/targets/${name}/edit`);
}

/** Each box shows the value (a select its chosen option, a box its text, a check box "true" when checked, radios the checked one). */
async function expectShown(page: Page, values: Record<string, string>) {
  for (const [path, value] of Object.entries(values)) {
    const box = page.locator(`[name="${path}"]`);
    const type = await box.first().getAttribute("type");
    if (type === "radio") expect(await page.locator(`[name="${path}"]:checked`).getAttribute("value"), path).toBe(value);
    else if (type === "checkbox") expect(await box.isChecked(), path).toBe(value === "true");
    else expect(await box.inputValue(), path).toBe(value);
  }
}

/** Opened for editing and saved untouched: the stored spec is the same. */
async function expectEditKeeps(page: Page, name: string, shown: Record<string, string>) {
  const before = (await apiTarget(name))?.spec;
  await openEdit(page, name);
  await expectShown(page, shown);
  await save(page, name);
  expect((await apiTarget(name))?.spec).toEqual(before);
}

describe("target form: the platform kinds", () => {
  it("a kind without a credential of its platform says so and links to Settings; a saved one is offered", async () => {
    const { page, errors } = await newTargetPage("gcp-cloud-run");
    const none = page.getByTestId("credential-none");
    expect(await none.textContent()).toBe("No Google Cloud credential yet: add one in Settings");
    expect(await none.locator("a").getAttribute("href")).toBe("/settings");
    await saveCredential("gcp-main");
    await page.reload();
    await page.getByTestId("target-kind").selectOption("gcp-cloud-run");
    expect(await page.locator('select[name="credential"] option').allTextContents()).toEqual(["choose one", "gcp-main"]);
    expect(await page.getByTestId("credential-none").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("kubernetes: min above max refused next to its field; then saved as typed, with the preview naming what is made", async () => {
    const { page, errors } = await newTargetPage("kubernetes");
    // Only the kubeconfigs are offered.
    expect(await page.locator('select[name="credential"] option').allTextContents()).toEqual(["choose one", "kube-main"]);
    await page.locator('input[name="name"]').fill("k8s-hpa");
    await fill(page, { credential: "kube-main", image: "ghcr.io/opsbench/cpu-loop:1", minReplicas: "4", maxReplicas: "2" });
    await expectRefused(page, "k8s-hpa", "minReplicas", "minReplicas (4) is above maxReplicas (2)");

    await fill(page, {
      minReplicas: "2",
      maxReplicas: "6",
      targetCpuPercent: "80",
      "resources.cpuLimit": "1",
      "resources.memoryLimit": "256Mi",
      "placement.nodeSelector": "pool=bench, disktype=ssd",
    });
    await page.locator('input[name="placement.onePodPerNode"]').check();
    await page.locator('input[name="k8s-endpoint"][value="url"]').check();
    await fill(page, { endpoint: "https://bench.example.com/" });
    const preview = page.getByTestId("target-effective");
    expect(await preview.textContent()).toContain("namespace opsbench-<run>: Deployment, Service (ClusterIP), HPA at 80% CPU");
    expect(await preview.textContent()).toContain("2..6 replicas");
    expect(await preview.textContent()).toContain("requests cpu 500m; limits cpu 1, memory 256Mi");
    // The field's error (and, as it was the only one, the banner) went when it was changed.
    expect(await page.getByTestId("error-spec.minReplicas").count()).toBe(0);
    expect(await page.getByTestId("form-error").count()).toBe(0);
    await page.screenshot({ path: "/tmp/target-form-kubernetes.png", fullPage: true });
    await save(page, "k8s-hpa");

    const typed = {
      credential: "kube-main",
      image: "ghcr.io/opsbench/cpu-loop:1",
      minReplicas: 2,
      maxReplicas: 6,
      targetCpuPercent: 80,
      resources: { cpuRequest: "500m", cpuLimit: "1", memoryLimit: "256Mi" },
      placement: { onePodPerNode: true, nodeSelector: { pool: "bench", disktype: "ssd" } },
      endpoint: "https://bench.example.com/",
    };
    const saved = await apiTarget("k8s-hpa");
    expect(saved?.kind).toBe("kubernetes");
    expect(saved?.spec).toEqual(targetSpecs.kubernetes.parse(typed));
    expect(saved?.spec).toMatchObject({ ...typed, port: 8080 });
    expect(await page.locator('[data-testid="target-row"][data-name="k8s-hpa"]').textContent()).toContain("HPA at 80% CPU");
    await expectEditKeeps(page, "k8s-hpa", {
      flavour: "",
      minReplicas: "2",
      "placement.nodeSelector": "pool=bench, disktype=ssd",
      "placement.onePodPerNode": "true",
      "placement.spreadEvenly": "",
      "k8s-endpoint": "url",
      endpoint: "https://bench.example.com/",
    });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("kubernetes as a Knative Service: its boxes replace HPA and placement; a value out of bounds refused beside it; saved, then edited with its values shown", async () => {
    const { page, errors } = await newTargetPage("kubernetes");
    await page.locator('input[name="name"]').fill("k8s-knative");
    expect(await page.locator('select[name="flavour"] option').allTextContents()).toEqual([
      "Deployment",
      "Knative Service",
      "OpenFaaS Function",
    ]);
    expect(await page.locator('[data-field="spec.flavour"]').textContent()).toContain("opsbench makes a Deployment, a Service and an HPA");
    expect(await page.locator('[name^="knative."]').count()).toBe(0);
    await fill(page, { credential: "kube-main", image: "ghcr.io/opsbench/echo:1", flavour: "knative-service" });
    expect(await page.locator('[data-field="spec.flavour"]').textContent()).toContain("Knative Serving must be on the cluster");
    // What the schema refuses with a Knative Service is not offered: own manifests, an HPA on CPU, pod placement.
    expect(await page.locator('[name="k8s-source"], [name="manifests"], [name="targetCpuPercent"], [name^="placement."]').count()).toBe(0);
    // The Knative boxes, bounded as the schema bounds them.
    const bounds = async (path: string) => {
      const box = page.locator(`input[name="${path}"]`);
      return [await box.getAttribute("type"), await box.getAttribute("min"), await box.getAttribute("max")];
    };
    expect(await bounds("knative.containerConcurrency")).toEqual(["number", "0", "1000"]);
    expect(await bounds("knative.targetConcurrency")).toEqual(["number", "1", "1000"]);
    expect(await bounds("knative.targetBurstCapacity")).toEqual(["number", "-1", "100000"]);
    expect(await bounds("knative.timeoutSeconds")).toEqual(["number", "1", "3600"]);

    await fill(page, { "knative.containerConcurrency": "2000", minReplicas: "2", maxReplicas: "4" });
    await expectRefused(page, "k8s-knative", "knative.containerConcurrency", /<=\s?1000/);
    await fill(page, {
      "knative.containerConcurrency": "10",
      "knative.targetConcurrency": "8",
      "knative.targetBurstCapacity": "0",
      "knative.timeoutSeconds": "60",
    });
    const preview = await page.getByTestId("target-effective").textContent();
    expect(preview).toContain("a Knative Service; Knative makes its Revision, Deployment and autoscaling");
    expect(preview).toContain("scale 2..4");
    expect(preview).toContain("container concurrency 10, target 8 concurrent per pod, burst capacity 0, timeout 60 s");
    expect(preview).toContain("load to the Knative Service's URL");
    await page.screenshot({ path: "/tmp/target-form-knative.png", fullPage: true });
    await save(page, "k8s-knative");
    const typed = {
      credential: "kube-main",
      image: "ghcr.io/opsbench/echo:1",
      flavour: "knative-service",
      knative: { containerConcurrency: 10, targetConcurrency: 8, targetBurstCapacity: 0, timeoutSeconds: 60 },
      minReplicas: 2,
      maxReplicas: 4,
      resources: { cpuRequest: "500m" },
    };
    expect((await apiTarget("k8s-knative"))?.spec).toEqual(targetSpecs.kubernetes.parse(typed));

    // Something the form has no box for (an env variable, set through the API): editing keeps it, value and all.
    const stored = await stack.scope.targets.byName("k8s-knative");
    await stack.scope.targets.put({
      name: "k8s-knative",
      kind: "kubernetes",
      spec: { ...(stored.spec as KubernetesSpec), env: { APP_MODE: "fast" } },
    });

    // Edit from the list: the same boxes, filled with the stored values.
    await openEdit(page, "k8s-knative");
    expect(await page.locator('input[name="name"]').isDisabled()).toBe(true);
    expect(await page.getByTestId("target-kind").isDisabled()).toBe(true);
    await expectShown(page, {
      name: "k8s-knative",
      credential: "kube-main",
      flavour: "knative-service",
      image: "ghcr.io/opsbench/echo:1",
      "knative.containerConcurrency": "10",
      "knative.targetConcurrency": "8",
      "knative.targetBurstCapacity": "0",
      "knative.timeoutSeconds": "60",
      minReplicas: "2",
      maxReplicas: "4",
      "resources.cpuRequest": "500m",
    });
    expect(await page.locator('[name="targetCpuPercent"]').count()).toBe(0);
    await page.screenshot({ path: "/tmp/target-form-knative-edit.png", fullPage: true });

    await fill(page, { "knative.targetConcurrency": "12" });
    await save(page, "k8s-knative");
    const edited = (await stack.scope.targets.byName("k8s-knative")).spec;
    expect(edited).toEqual(
      targetSpecs.kubernetes.parse({ ...typed, knative: { ...typed.knative, targetConcurrency: 12 }, env: { APP_MODE: "fast" } }),
    );
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("kubernetes as an OpenFaaS Function: the gateway is where the load goes, no HPA, placement or held nodes; saved and edited", async () => {
    const { page, errors } = await newTargetPage("kubernetes");
    await page.locator('input[name="name"]').fill("k8s-openfaas");
    // A Deployment may hold nodes for the run; the box goes with the flavour.
    expect(await page.locator('input[name="nodes"]').count()).toBe(1);
    await fill(page, { credential: "kube-main", image: "ghcr.io/opsbench/echo:1", flavour: "openfaas-function" });
    expect(await page.locator('[data-field="spec.flavour"]').textContent()).toContain("OpenFaaS with its operator must be on the cluster");
    expect(
      await page
        .locator('[name="k8s-source"], [name="targetCpuPercent"], [name^="placement."], [name="nodes"], [name^="knative."]')
        .count(),
    ).toBe(0);
    // No gateway: the server names the field that says where the load goes.
    await fill(page, { minReplicas: "1", maxReplicas: "3" });
    await expectRefused(page, "k8s-openfaas", "openfaas.gateway", /say where the load goes/);
    await fill(page, { "openfaas.gateway": "http://gateway.example.com:8080/" });
    await page.locator('input[name="openfaas.scaleToZero"]').check();
    const preview = await page.getByTestId("target-effective").textContent();
    expect(preview).toContain("an OpenFaaS Function; its operator makes the Deployment and Service");
    expect(preview).toContain("scale 1..3 (com.openfaas.scale.min..max), may scale to zero");
    expect(preview).toContain("load to http://gateway.example.com:8080/function/app.opsbench-<run>");
    await page.screenshot({ path: "/tmp/target-form-openfaas.png", fullPage: true });
    await save(page, "k8s-openfaas");
    const typed = {
      credential: "kube-main",
      image: "ghcr.io/opsbench/echo:1",
      flavour: "openfaas-function",
      openfaas: { gateway: "http://gateway.example.com:8080/", scaleToZero: true },
      minReplicas: 1,
      maxReplicas: 3,
      resources: { cpuRequest: "500m" },
    };
    expect((await apiTarget("k8s-openfaas"))?.spec).toEqual(targetSpecs.kubernetes.parse(typed));
    await expectEditKeeps(page, "k8s-openfaas", {
      flavour: "openfaas-function",
      "openfaas.gateway": "http://gateway.example.com:8080/",
      "openfaas.scaleToZero": "true",
      minReplicas: "1",
      maxReplicas: "3",
    });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("kubernetes with own manifests: only the manifests' fields are sent, the preview counts the documents", async () => {
    const { page, errors } = await newTargetPage("kubernetes");
    await page.locator('input[name="name"]').fill("k8s-own");
    await page.locator('input[name="k8s-source"][value="manifests"]').check();
    // Replicas, HPA, resources and pod density are the manifests' own: their boxes are gone.
    expect(await page.locator('[name="minReplicas"], [name="resources.cpuRequest"], [name="image"]').count()).toBe(0);
    const manifests =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n";
    await fill(page, { credential: "kube-main", manifests, deployment: "web" });
    expect(await page.getByTestId("target-effective").textContent()).toContain("your manifests (2 documents)");
    await save(page, "k8s-own");
    expect((await apiTarget("k8s-own"))?.spec).toEqual(
      targetSpecs.kubernetes.parse({ credential: "kube-main", manifests, deployment: "web" }),
    );
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("kubernetes by port-forward: the spec says portForward, the Service is ClusterIP, the preview says it is flagged", async () => {
    const { page, errors } = await newTargetPage("kubernetes");
    await page.locator('input[name="name"]').fill("k8s-forwarded");
    await fill(page, { credential: "kube-main", image: "ghcr.io/example/app:1" });
    await page.locator('input[name="k8s-endpoint"][value="port-forward"]').check();
    const preview = await page.getByTestId("target-effective").textContent();
    expect(preview).toContain("Service (ClusterIP)");
    expect(preview).toContain("port-forwards of the API server");
    expect(preview).toContain("(flagged)");
    await save(page, "k8s-forwarded");
    const spec = (await apiTarget("k8s-forwarded"))?.spec as { portForward?: boolean; endpoint?: string };
    expect(spec.portForward).toBe(true);
    expect(spec.endpoint).toBeUndefined();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("endpoint linked to an Auto Scaling group: only that link's boxes are sent; a link without its region is refused next to it", async () => {
    const { page, errors } = await newTargetPage("endpoint");
    await page.locator('input[name="name"]').fill("linked-asg");
    await fill(page, { url: "http://127.0.0.1:9009/" });
    // Typed under another link first: left out once the link changes.
    await page.locator('input[name="@link"][value="kubernetes"]').check();
    await fill(page, { "linked.namespace": "shop" });
    await page.locator('input[name="@link"][value="aws"]').check();
    await fill(page, { "linked.credential": "aws-main", "linked.autoScalingGroupName": "shop-asg" });
    await expectRefused(page, "linked-asg", "linked.region", "give the region of the group or service");
    await fill(page, { "linked.region": "us-east-1" });
    expect(await page.getByTestId("target-effective").textContent()).toContain(
      "observes Auto Scaling group shop-asg in us-east-1 (CloudWatch)",
    );
    await save(page, "linked-asg");
    expect((await apiTarget("linked-asg"))?.spec).toEqual({
      url: "http://127.0.0.1:9009/",
      linked: { credential: "aws-main", autoScalingGroupName: "shop-asg", region: "us-east-1" },
    });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  const cases: Array<{
    kind: TargetKind;
    name: string;
    values: Record<string, string>;
    wrong?: { values: Record<string, string>; path: string; message: string | RegExp };
    typed: Record<string, unknown>;
    preview: string;
  }> = [
    {
      kind: "aws-asg",
      name: "asg-70",
      values: { credential: "aws-main", region: "eu-west-1", imageId: "ami-0123456789abcdef0", instanceType: "c5.large", maxSize: "6" },
      wrong: { values: { minSize: "8" }, path: "minSize", message: "minSize (8) is above maxSize (6)" },
      typed: {
        credential: "aws-main",
        region: "eu-west-1",
        imageId: "ami-0123456789abcdef0",
        instanceType: "c5.large",
        minSize: 2,
        maxSize: 6,
      },
      preview: "Auto Scaling group of 2..6 instances, target tracking at 70% CPU",
    },
    {
      kind: "aws-lambda",
      name: "echo-lambda",
      values: {
        credential: "aws-main",
        region: "us-east-1",
        runtime: "nodejs20.x",
        memoryMb: "512",
        timeoutSeconds: "10",
        reservedConcurrency: "5",
      },
      wrong: { values: { roleArn: "lambda-role" }, path: "roleArn", message: "an IAM role ARN" },
      typed: {
        credential: "aws-main",
        region: "us-east-1",
        runtime: "nodejs20.x",
        memoryMb: 512,
        timeoutSeconds: 10,
        reservedConcurrency: 5,
        roleArn: "arn:aws:iam::123456789012:role/opsbench-lambda",
      },
      preview: "echo/lambda on nodejs20.x, 512 MB, timeout 10 s, with a function URL",
    },
    {
      kind: "gcp-cloud-run",
      name: "cloud-run-100",
      values: {
        credential: "gcp-main",
        region: "europe-west1",
        image: "gcr.io/opsbench/echo:1",
        concurrency: "100",
        maxInstances: "20",
        memoryMb: "256",
        cpuThrottling: "false",
        "metrics.settleSeconds": "180",
      },
      typed: {
        credential: "gcp-main",
        region: "europe-west1",
        image: "gcr.io/opsbench/echo:1",
        concurrency: 100,
        maxInstances: 20,
        memoryMb: 256,
        cpuThrottling: false,
        metrics: { settleSeconds: 180 },
      },
      preview: "1 vCPU, 256 MiB, CPU always allocated",
    },
    {
      kind: "endpoint",
      name: "existing",
      values: { url: "http://127.0.0.1:9009/" },
      wrong: { values: { url: "bench.example.com" }, path: "url", message: /URL/ },
      typed: { url: "http://127.0.0.1:9009/", linked: { credential: "kube-main", namespace: "shop", deployment: "web" } },
      preview: "observes Deployment web in namespace shop with credential kube-main",
    },
  ];

  it.each(cases)("$kind: saved as typed through the form; a wrong value refused next to its field", async (c) => {
    const { page, errors } = await newTargetPage(c.kind);
    await page.locator('input[name="name"]').fill(c.name);
    await fill(page, c.values);
    if (c.wrong) {
      await fill(page, c.wrong.values);
      await expectRefused(page, c.name, c.wrong.path, c.wrong.message);
    }
    // The values the wrong one replaces, and what each kind has besides.
    if (c.kind === "aws-asg") await fill(page, { minSize: "2" });
    if (c.kind === "aws-lambda") await fill(page, { roleArn: "arn:aws:iam::123456789012:role/opsbench-lambda" });
    if (c.kind === "endpoint") {
      await fill(page, { url: "http://127.0.0.1:9009/" });
      await page.locator('input[name="@link"][value="kubernetes"]').check();
      await fill(page, { "linked.credential": "kube-main", "linked.namespace": "shop", "linked.deployment": "web" });
    }
    expect(await page.getByTestId("target-effective").textContent()).toContain(c.preview);
    await page.screenshot({ path: `/tmp/target-form-${c.kind}.png`, fullPage: true });
    await save(page, c.name);
    const saved = await apiTarget(c.name);
    expect(saved?.kind).toBe(c.kind);
    expect(saved?.spec).toEqual(targetSpecs[c.kind].parse(c.typed));
    expect(saved?.spec).toMatchObject(c.typed);
    // Edited: the boxes show what was typed, and saving them untouched changes nothing.
    await expectEditKeeps(page, c.name, c.kind === "endpoint" ? { url: c.values.url!, "linked.namespace": "shop" } : c.values);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
