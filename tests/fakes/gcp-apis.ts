// A fake of the Google Cloud REST methods opsbench calls, on loopback: Cloud Run Admin v2
// (services create/get/list/delete, operations get) and Cloud Monitoring v3 (timeSeries
// list and create). Requests and answers go through the protos the npm packages ship
// (protobufjs + proto3-json-serializer, both under google-gax): a field the proto does
// not have fails the request, as the real API's parser does. Each request must carry a
// self-signed JWT from a service account the fake was given (a wrong key gets 401).
import { createVerify, generateKeyPairSync, randomUUID } from "node:crypto";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { fromProto3JSON, toProto3JSON, type JSONValue } from "proto3-json-serializer";
import protobuf from "protobufjs";
import { MetricServiceClient } from "@google-cloud/monitoring";

const require = createRequire(import.meta.url);
const runRoot = protobuf.Root.fromJSON(require("@google-cloud/run/build/protos/protos.json"));
const monitoringRoot = protobuf.Root.fromJSON(require("@google-cloud/monitoring/build/protos/protos.json"));
const Service = runRoot.lookupType("google.cloud.run.v2.Service");
const Operation = runRoot.lookupType("google.longrunning.Operation");
const ListServicesResponse = runRoot.lookupType("google.cloud.run.v2.ListServicesResponse");
const CreateTimeSeriesRequest = monitoringRoot.lookupType("google.monitoring.v3.CreateTimeSeriesRequest");
const ListTimeSeriesResponse = monitoringRoot.lookupType("google.monitoring.v3.ListTimeSeriesResponse");

/** A service-account key file as Google issues it, for a project. */
export function serviceAccountKey(projectId: string, email = `opsbench@${projectId}.iam.gserviceaccount.com`) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const key = {
    type: "service_account",
    project_id: projectId,
    private_key_id: randomUUID().replace(/-/g, ""),
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: email,
    client_id: "1",
    token_uri: "https://oauth2.googleapis.com/token",
  };
  return { json: JSON.stringify(key), email, publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

type Json = Record<string, unknown>;
type StoredSeries = { project: string; series: Json };

export interface GcpFake {
  url: string;
  /** Services by full name, as stored (proto3 JSON). */
  services: Map<string, Json>;
  /** Counts of calls by method, e.g. "services.create". */
  calls: Map<string, number>;
  trust(email: string, publicKeyPem: string): void;
  stop(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}

function verifyJwt(header: string | undefined, trusted: Map<string, string>): void {
  const token = /^Bearer (.+)$/.exec(header ?? "")?.[1];
  if (!token) throw new HttpError(401, "UNAUTHENTICATED", "Request is missing required authentication credential.");
  const [h, p, sig] = token.split(".");
  const claims = JSON.parse(Buffer.from(p ?? "", "base64url").toString("utf8")) as { iss?: string; exp?: number };
  const key = claims.iss ? trusted.get(claims.iss) : undefined;
  const ok =
    key &&
    createVerify("RSA-SHA256")
      .update(`${h}.${p}`)
      .verify(key, Buffer.from(sig ?? "", "base64url"));
  if (!ok || (claims.exp ?? 0) * 1000 < Date.now())
    throw new HttpError(
      401,
      "UNAUTHENTICATED",
      "Request had invalid authentication credentials. Expected OAuth 2 access token or other valid authentication credential.",
    );
}

const asProto = (type: protobuf.Type, json: unknown): Json => {
  const message = fromProto3JSON(type, json as JSONValue);
  if (!message) throw new HttpError(400, "INVALID_ARGUMENT", `not a ${type.name}`);
  return toProto3JSON(message as protobuf.Message) as Json;
};

const seconds = (t: string | undefined) => (t ? Date.parse(t) / 1000 : Number.NaN);

export async function startGcpFake(): Promise<GcpFake> {
  const services = new Map<string, Json>();
  const operations = new Map<string, Json>();
  const series: StoredSeries[] = [];
  const trusted = new Map<string, string>();
  const calls = new Map<string, number>();
  const count = (m: string) => calls.set(m, (calls.get(m) ?? 0) + 1);

  const done = (parent: string, service: Json): Json => {
    const name = `${parent}/operations/${randomUUID()}`;
    const op = asProto(Operation, {
      name,
      done: true,
      response: { "@type": "type.googleapis.com/google.cloud.run.v2.Service", ...service },
    });
    operations.set(name, op);
    return op;
  };

  async function handle(req: http.IncomingMessage, body: string): Promise<unknown> {
    verifyJwt(req.headers.authorization, trusted);
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    let m = /^\/v2\/(projects\/[^/]+\/locations\/[^/]+)\/services$/.exec(path);
    if (m) {
      const parent = m[1]!;
      if (req.method === "GET") {
        count("services.list");
        const list = [...services.values()].filter((s) => String(s.name).startsWith(`${parent}/`));
        return asProto(ListServicesResponse, { services: list });
      }
      if (req.method === "POST") {
        count("services.create");
        const id = url.searchParams.get("serviceId") ?? "";
        if (!/^[a-z]([-a-z0-9]{0,47}[a-z0-9])?$/.test(id))
          throw new HttpError(400, "INVALID_ARGUMENT", `serviceId "${id}" is not a valid name`);
        const name = `${parent}/services/${id}`;
        if (services.has(name)) throw new HttpError(409, "ALREADY_EXISTS", `Resource '${id}' already exists.`);
        const now = new Date().toISOString();
        const service = asProto(Service, {
          ...asProto(Service, JSON.parse(body || "{}")),
          name,
          uid: randomUUID(),
          generation: "1",
          createTime: now,
          updateTime: now,
          uri: `https://${id}-fake.a.run.app`,
          reconciling: false,
          terminalCondition: { type: "Ready", state: "CONDITION_SUCCEEDED", lastTransitionTime: now },
          latestReadyRevision: `${name}/revisions/${id}-00001`,
          latestCreatedRevision: `${name}/revisions/${id}-00001`,
        });
        services.set(name, service);
        return done(parent, service);
      }
    }
    m = /^\/v2\/(projects\/[^/]+\/locations\/[^/]+)\/services\/([^/]+)$/.exec(path);
    if (m) {
      const name = `${m[1]}/services/${m[2]}`;
      const service = services.get(name);
      if (!service)
        throw new HttpError(404, "NOT_FOUND", `Resource '${m[2]}' of kind 'SERVICE' in region '${m[1]!.split("/")[3]}' does not exist.`);
      if (req.method === "GET") {
        count("services.get");
        return service;
      }
      if (req.method === "DELETE") {
        count("services.delete");
        services.delete(name);
        return done(m[1]!, service);
      }
    }
    if (/^\/v2\/projects\/[^/]+\/locations\/[^/]+\/operations\/[^/]+$/.test(path) && req.method === "GET") {
      const op = operations.get(path.slice(4));
      if (!op) throw new HttpError(404, "NOT_FOUND", "operation not found");
      return op;
    }
    m = /^\/v3\/projects\/([^/]+)\/timeSeries$/.exec(path);
    if (m) {
      const project = m[1]!;
      if (req.method === "POST") {
        count("timeSeries.create");
        const request = asProto(CreateTimeSeriesRequest, { name: `projects/${project}`, ...JSON.parse(body || "{}") });
        for (const s of (request.timeSeries as Json[] | undefined) ?? []) series.push({ project, series: s });
        return {};
      }
      if (req.method === "GET") {
        count("timeSeries.list");
        const filter = url.searchParams.get("filter") ?? "";
        const type = /metric\.type\s*=\s*"([^"]+)"/.exec(filter)?.[1];
        const service = /resource\.labels\.service_name\s*=\s*"([^"]+)"/.exec(filter)?.[1];
        if (!type) throw new HttpError(400, "INVALID_ARGUMENT", "Field filter had an invalid value: a metric.type is required");
        const from = seconds(url.searchParams.get("interval.startTime") ?? undefined);
        const to = seconds(url.searchParams.get("interval.endTime") ?? undefined);
        if (!Number.isFinite(to)) throw new HttpError(400, "INVALID_ARGUMENT", "interval.endTime is required");
        // Stored points are already at 60 s boundaries, so alignment leaves them as they are.
        const matching = series
          .filter((s) => s.project === project)
          .map((s) => s.series)
          .filter((s) => (s.metric as Json | undefined)?.type === type)
          .filter((s) => !service || ((s.resource as Json | undefined)?.labels as Json | undefined)?.service_name === service)
          .map((s) => ({
            ...s,
            points: ((s.points as Json[] | undefined) ?? []).filter((p) => {
              const end = seconds((p.interval as Json | undefined)?.endTime as string | undefined);
              return end > (Number.isFinite(from) ? from : 0) && end <= to;
            }),
          }))
          .filter((s) => s.points.length > 0);
        return asProto(ListTimeSeriesResponse, { timeSeries: matching });
      }
    }
    throw new HttpError(404, "NOT_FOUND", `no such method: ${req.method} ${path}`);
  }

  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      handle(req, body).then(
        (out) => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(out));
        },
        (err: unknown) => {
          const e =
            err instanceof HttpError ? err : new HttpError(400, "INVALID_ARGUMENT", err instanceof Error ? err.message : String(err));
          res.writeHead(e.code, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: e.code, message: e.message, status: e.status } }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    calls,
    trust: (email, publicKeyPem) => void trusted.set(email, publicKeyPem),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Writes one 60 s point per series through the real Monitoring client (as CloudWatch's PutMetricData in the AWS test). */
export async function putCloudRunSeries(
  endpoint: string,
  secret: { serviceAccountKey: string; projectId: string; region: string },
  service: string,
  minute: Date,
  points: Array<{
    type: string;
    labels?: Record<string, string>;
    value: { int64Value?: number; doubleValue?: number; distributionValue?: { count: number; mean: number } };
  }>,
) {
  const key = JSON.parse(secret.serviceAccountKey) as { client_email: string; private_key: string };
  const url = new URL(endpoint);
  const client = new MetricServiceClient({
    credentials: { client_email: key.client_email, private_key: key.private_key },
    projectId: secret.projectId,
    fallback: true,
    apiEndpoint: url.hostname,
    port: Number(url.port),
    protocol: "http",
  });
  const interval = { startTime: { seconds: minute.getTime() / 1000 }, endTime: { seconds: minute.getTime() / 1000 + 60 } };
  await client.createTimeSeries({
    name: `projects/${secret.projectId}`,
    timeSeries: points.map((p) => ({
      metric: { type: p.type, labels: p.labels ?? {} },
      resource: { type: "cloud_run_revision", labels: { service_name: service, location: secret.region, project_id: secret.projectId } },
      points: [{ interval, value: p.value }],
    })),
  });
  await client.close();
}
