// OpenTelemetry tracing across API → workflow → activities, on when OTEL_EXPORTER_OTLP_ENDPOINT is set (the
// standard OTLP/HTTP variables then apply). The API opens a span per request; the Temporal client interceptor
// carries its context into the workflow's headers; the worker's interceptors continue it in workflow and activity
// spans (workflow spans leave the sandbox through a sink). Span names and attributes carry ids, never personal data.
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

export interface Tracing {
  exporter: SpanExporter;
  resource: Resource;
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

/** Installs the global tracer provider once per process; `exporter` for tests, OTLP from the environment otherwise. */
export function installTracing(serviceName: string, exporter?: SpanExporter): Tracing {
  if (installed) return installed;
  const resource = new Resource({ 'service.name': serviceName });
  const spanExporter = exporter ?? new OTLPTraceExporter();
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [exporter ? new SimpleSpanProcessor(spanExporter) : new BatchSpanProcessor(spanExporter)],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  // The context travels in Temporal headers as W3C trace context (the client injects it, the worker extracts it).
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  installed = { exporter: spanExporter, resource, shutdown: () => provider.shutdown() };
  return installed;
}

/** Tracing as the environment asks: on with an OTLP endpoint, off (undefined) otherwise. */
export const tracingFromEnv = (serviceName: string): Tracing | undefined =>
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? installTracing(serviceName)
    : undefined;
