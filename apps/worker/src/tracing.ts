// OpenTelemetry traces of the worker, optional: on when the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_EXPORTER_OTLP_ENDPOINT is set (OTLP over HTTP, JSON), off otherwise, and then free: the SDK is not even
// loaded, and @opentelemetry/api's tracer without a provider makes spans that record nothing. OTEL_SERVICE_NAME names
// the service (default opsbench-worker); OTEL_TRACES_EXPORTER=none turns it off; OTEL_EXPORTER_OTLP_HEADERS and the
// batch settings (OTEL_BSP_*) are the SDK's own. A job is one span (`job <queue>`), a run's phases its children.
import { type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { runPhaseSeconds, timed } from "@opsbench/jobs";

const tracer = trace.getTracer("opsbench-worker");

/** The standard variables read here (worker env.ts validates them). */
export interface OtelEnv {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
  OTEL_TRACES_EXPORTER?: string;
  OTEL_SDK_DISABLED?: string;
}
type Env = OtelEnv;

/** The OTLP/HTTP traces URL the environment names, or null when traces are off. */
export function tracesUrl(env: Env): string | null {
  if (env.OTEL_TRACES_EXPORTER === "none" || env.OTEL_SDK_DISABLED === "true") return null;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  return null;
}

let started: Promise<{ shutdown(): Promise<void> } | null> | null = null;

/**
 * Registers the process's tracer provider when the environment asks for traces (once per process: a second worker
 * in one process shares it). Null when traces are off.
 */
export function startTracing(env: Env): Promise<{ shutdown(): Promise<void> } | null> {
  const url = tracesUrl(env);
  if (!url) return Promise.resolve(null);
  started ??= (async () => {
    const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
    ]);
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "opsbench-worker" }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    provider.register();
    return { shutdown: () => provider.shutdown() };
  })();
  return started;
}

/** Runs `fn` in a span named `name` with `attributes`, ended with its outcome (an error is recorded and rethrown). */
export async function inSpan<T>(name: string, attributes: Record<string, string>, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** One phase of a run: its duration in opsbench_run_phase_seconds, and a span `run <phase>` when traces are on. */
export const phase = <T>(name: string, runId: string, fn: () => Promise<T>): Promise<T> =>
  inSpan(`run ${name}`, { "opsbench.run_id": runId, "opsbench.phase": name }, () => timed(runPhaseSeconds, name, fn));
