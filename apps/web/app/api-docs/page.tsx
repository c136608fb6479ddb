import type { Metadata } from "next";
import { PageHeader, Panel, tableCell, tableHead } from "@/components/panel";
import { openApiDocument } from "@/lib/api/openapi";

export const metadata: Metadata = { title: "API" };

interface Operation {
  operationId: string;
  summary: string;
  parameters: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  /** `content` is absent where the answer has no body (431, from Node before any route). */
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}

const METHOD_COLOR: Record<string, string> = {
  get: "bg-sky-100 text-sky-800",
  post: "bg-emerald-100 text-emerald-800",
  put: "bg-amber-100 text-amber-800",
  delete: "bg-red-100 text-red-800",
};

/** A JSON Schema, folded: long ones (a workload spec) would otherwise fill the page. */
function SchemaBlock({ label, schema }: { label: string; schema: unknown }) {
  return (
    <details className="mt-1">
      <summary className="cursor-pointer text-xs text-zinc-600">{label}</summary>
      <pre className="mt-1 max-h-96 overflow-auto rounded bg-zinc-50 p-2 text-2xs leading-snug">{JSON.stringify(schema, null, 2)}</pre>
    </details>
  );
}

function OperationPanel({ method, path, op }: { method: string; path: string; op: Operation }) {
  return (
    <Panel
      testId={`api-op-${op.operationId}`}
      title={
        <span className="inline-flex items-center gap-2">
          <span className={`rounded px-1.5 py-0.5 font-mono text-2xs font-semibold uppercase ${METHOD_COLOR[method] ?? ""}`}>{method}</span>
          <span className="font-mono text-zinc-900">{path}</span>
        </span>
      }
    >
      <div className="px-3 py-2 text-sm">
        <p>{op.summary}</p>
        {op.parameters.length > 0 && (
          <p className="mt-1 text-xs text-zinc-600">
            Parameters:{" "}
            {op.parameters.map((p) => (
              <code key={`${p.in}-${p.name}`} className="mr-2">
                {p.name} ({p.in}
                {p.required ? ", required" : ""})
              </code>
            ))}
          </p>
        )}
        {op.requestBody && (
          <SchemaBlock label="Request body (application/json)" schema={op.requestBody.content["application/json"]?.schema} />
        )}
        <table className="mt-2 w-full text-xs">
          <thead>
            <tr>
              <th className={tableHead}>Status</th>
              <th className={tableHead}>Meaning</th>
              <th className={tableHead}>Body</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(op.responses).map(([status, r]) => (
              <tr key={status} className="border-t border-zinc-100 align-top">
                <td className={`${tableCell} font-mono`}>{status}</td>
                <td className={tableCell}>{r.description}</td>
                <td className={tableCell}>
                  {r.content ? null : <span className="text-zinc-500">no body</span>}
                  {Object.entries(r.content ?? {}).map(([type, c]) =>
                    type === "application/json" && c.schema && Object.keys(c.schema).length > 0 ? (
                      <SchemaBlock key={type} label={type} schema={c.schema} />
                    ) : (
                      <code key={type}>{type}</code>
                    ),
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}

/** The API reference, rendered from the same document /api/v1/openapi.json serves (no assets from elsewhere). */
export default function ApiDocsPage() {
  const doc = openApiDocument();
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, Operation>).map(([method, op]) => ({ path, method, op })),
  );
  return (
    <div className="space-y-3">
      <PageHeader
        title="API"
        right={
          <a href="/api/v1/openapi.json" className="text-xs text-sky-700 underline">
            openapi.json
          </a>
        }
      >
        <span className="text-xs text-zinc-500">{doc.info.description}</span>
      </PageHeader>
      {operations.map((o) => (
        <OperationPanel key={`${o.method} ${o.path}`} {...o} />
      ))}
    </div>
  );
}
