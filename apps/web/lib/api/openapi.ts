// The OpenAPI 3.1 document of /api/v1, made from the route contracts (contracts.ts): the same zod schemas the
// handlers parse their input with (as JSON Schema of their input side) and the tests check answers against (as
// JSON Schema of their output side). Served at /api/v1/openapi.json, shown at /api-docs, fuzzed by schemathesis.
import { z } from "zod";
import { API_CONTRACTS, type NonJsonBody, type RouteContract } from "./contracts";

type JsonSchema = Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  401: "No valid API token (Authorization: Bearer) or session",
  403: "Forbidden: a cross-site request",
  404: "Not found (also: in another workspace)",
  413: "The body is too large",
  415: "The body is not JSON",
  422: "The input is invalid; issues name the fields",
  429: "Too many: a workspace limit on runs",
  500: "Internal error",
};

const isNonJson = (r: z.ZodType | NonJsonBody): r is NonJsonBody => "contentType" in r;

/** Definitions lifted out of each schema (recursive ones, e.g. any JSON value) into components.schemas. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  /** The JSON Schema of one side of a zod schema, its local $defs moved to components under `name`_... */
  add(schema: z.ZodType, io: "input" | "output", name: string): JsonSchema {
    const { $schema: _, $defs, ...root } = z.toJSONSchema(schema, { io, unrepresentable: "any", reused: "inline" }) as JsonSchema;
    const defs = ($defs ?? {}) as Record<string, JsonSchema>;
    const rename = (ref: string) => {
      if (ref === "#") return `#/components/schemas/${name}`;
      const local = /^#\/\$defs\/(.+)$/.exec(ref);
      return local ? `#/components/schemas/${name}_${local[1]}` : ref;
    };
    const rewrite = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(rewrite);
      if (v === null || typeof v !== "object") return v;
      const out = Object.fromEntries(
        Object.entries(v).map(([k, x]) => [k, k === "$ref" && typeof x === "string" ? rename(x) : rewrite(x)]),
      );
      return Array.isArray(out.prefixItems) ? withoutTuple(out, out.prefixItems) : out;
    };
    for (const [key, def] of Object.entries(defs)) this.schemas[`${name}_${key}`] = rewrite(def) as JsonSchema;
    const out = rewrite(root) as JsonSchema;
    // A schema that refers to itself ("#") must live in components, to have an address.
    if (JSON.stringify(out).includes(`"#/components/schemas/${name}"`)) {
      this.schemas[name] = out;
      return { $ref: `#/components/schemas/${name}` };
    }
    return out;
  }
}

/**
 * A tuple ([n, n]) as a fixed-length array of its item types: schemathesis reads OpenAPI 3.1's `prefixItems`
 * as the `items` array of older drafts and refuses the document, so tuples are said in the older-compatible way.
 */
function withoutTuple(schema: JsonSchema, prefixItems: unknown[]): JsonSchema {
  const { prefixItems: _, ...rest } = schema;
  const kinds = [...new Map(prefixItems.map((p) => [JSON.stringify(p), p])).values()];
  return { ...rest, items: kinds.length === 1 ? kinds[0] : { anyOf: kinds }, minItems: prefixItems.length, maxItems: prefixItems.length };
}

/**
 * How a caller proves who it is. `bearerAuth`: a workspace member's API token (Settings, API tokens; `opsbench`'s
 * OPSBENCH_TOKEN), on every route that needs an account; a signed-in browser's session cookie is taken there too,
 * but the document names only the token, what a client program uses. `ingestToken`: an external run's own token
 * (answered once by POST /api/v1/runs/external), the one key of its ingest route.
 */
const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    description:
      "An API token of a workspace member (Settings, API tokens), as `Authorization: Bearer <token>`; its role decides what it may do",
  },
  ingestToken: {
    type: "http",
    scheme: "bearer",
    description: "An external run's own ingest token, answered once when the run is made (POST /api/v1/runs/external)",
  },
} as const;

/** The security requirement of a route: the API token unless it is public; the ingest route takes only its run's token. */
function securityOf(contract: RouteContract): Array<Record<string, string[]>> {
  if (contract.role !== "public") return [{ bearerAuth: [] }];
  return contract.path.endsWith("/ingest") ? [{ ingestToken: [] }] : [];
}

const operationId = (key: string) =>
  key
    .toLowerCase()
    .replace(/[{}]/g, "")
    .replace(/[^a-z0-9]+(.)/g, (_, c: string) => c.toUpperCase());

function parameters(contract: RouteContract, components: Components, id: string) {
  const out: JsonSchema[] = [];
  for (const name of contract.path.matchAll(/\{(\w+)\}/g))
    out.push({ name: name[1], in: "path", required: true, schema: { type: "string" } });
  if (contract.query) {
    const q = components.add(contract.query, "input", `${id}Query`);
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((q.properties ?? {}) as Record<string, JsonSchema>))
      out.push({ name, in: "query", required: required.has(name), schema });
  }
  return out;
}

/**
 * What any operation may answer before its route runs: Node's HTTP server refuses a request whose request line and
 * headers pass its 16 KB limit (a query that long, say) with an empty 431.
 */
const BEFORE_ANY_ROUTE = {
  431: { description: "Request header fields too large: the request line and headers pass 16 KB (Node's HTTP server answers, no body)" },
};

function responses(contract: RouteContract, components: Components, id: string) {
  return {
    ...Object.fromEntries(
      Object.entries(contract.responses).map(([status, body]) => {
        const description = STATUS_TEXT[Number(status)] ?? `HTTP ${status}`;
        const content = isNonJson(body)
          ? Object.fromEntries(body.contentType.split(", ").map((t) => [t, { schema: {} }]))
          : { "application/json": { schema: components.add(body, "output", `${id}${status}`) } };
        return [status, { description, content }];
      }),
    ),
    ...BEFORE_ANY_ROUTE,
  };
}

export function openApiDocument() {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [key, contract] of Object.entries(API_CONTRACTS) as Array<[string, RouteContract]>) {
    const id = operationId(key);
    paths[contract.path] ??= {};
    paths[contract.path]![contract.method.toLowerCase()] = {
      operationId: id,
      summary: contract.summary,
      tags: [contract.path.split("/")[3] ?? "api"],
      security: securityOf(contract),
      parameters: parameters(contract, components, id),
      ...(contract.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: components.add(contract.body, "input", `${id}Body`) } },
            },
          }
        : contract.rawBody
          ? { requestBody: { required: true, content: { [contract.rawBody.contentType]: { schema: { type: "string" } } } } }
          : {}),
      responses: responses(contract, components, id),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "opsbench API",
      version: "1",
      description:
        "Targets, workloads, runs, studies, comparisons and share links of a workspace. Mutations take JSON bodies " +
        "(Content-Type: application/json) and, from a browser, a same-origin Origin. A program authenticates with an API " +
        "token of a workspace member (Authorization: Bearer <token>, the bearerAuth scheme); a share link's routes need none.",
    },
    paths,
    // Every operation states its own requirement (public ones an empty list); this is what an operation without one gets.
    security: [{ bearerAuth: [] }],
    components: { schemas: components.schemas, securitySchemes: SECURITY_SCHEMES },
  };
}
export type OpenApiDocument = ReturnType<typeof openApiDocument>;
