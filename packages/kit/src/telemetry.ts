import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { ExportResult } from "@opentelemetry/core";

/**
 * The OpenTelemetry SDK is loaded only when tracing is on. It is most of what a service imports: about
 * 0.8 s of CPU at every start of every service, CLI run and test process, for a feature off by
 * default. Its packages are CommonJS (what an `import` of them loads too), so a require() here gives
 * the same module instances, and startTelemetry stays synchronous: the global tracer is registered
 * before main() makes a span.
 */
const require = createRequire(import.meta.url);

/**
 * Writes finished spans as JSON lines to a file. Used by tests (MAILROOM_TRACE_FILE) to assert
 * that one request yields one trace across processes, without an OTLP collector.
 */
function fileSpanExporter(file: string, serviceNameKey: string, success: ExportResult["code"]): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (r: ExportResult) => void): void {
      const lines = spans.map((s) =>
        JSON.stringify({
          traceId: s.spanContext().traceId,
          spanId: s.spanContext().spanId,
          parentSpanId: s.parentSpanContext?.spanId ?? null,
          name: s.name,
          service: s.resource.attributes[serviceNameKey],
          attributes: s.attributes,
        }),
      );
      if (lines.length) appendFileSync(file, `${lines.join("\n")}\n`);
      done({ code: success });
    },
    async shutdown(): Promise<void> {},
  };
}

let sdk: NodeSDK | undefined;

/**
 * Starts tracing when it is asked for (any OTLP endpoint variable, or MAILROOM_TRACE_FILE); with
 * neither set tracing is off and the API is a no-op. Spans are made by hand (NATS, SQL, SMTP,
 * webhooks): there is no monkey-patching auto-instrumentation to load first.
 */
export function startTelemetry(service: string, env: NodeJS.ProcessEnv = process.env): void {
  const otlp = env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const file = env.MAILROOM_TRACE_FILE;
  if (!otlp && !file) return;
  const { NodeSDK } = require("@opentelemetry/sdk-node") as typeof import("@opentelemetry/sdk-node");
  const { resourceFromAttributes } = require("@opentelemetry/resources") as typeof import("@opentelemetry/resources");
  const { ATTR_SERVICE_NAME } = require("@opentelemetry/semantic-conventions") as typeof import("@opentelemetry/semantic-conventions");
  const { BatchSpanProcessor, SimpleSpanProcessor } = require("@opentelemetry/sdk-trace-base") as typeof import("@opentelemetry/sdk-trace-base");
  const { ExportResultCode } = require("@opentelemetry/core") as typeof import("@opentelemetry/core");
  const processors = [];
  if (otlp) {
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http") as typeof import("@opentelemetry/exporter-trace-otlp-http");
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  }
  if (file) processors.push(new SimpleSpanProcessor(fileSpanExporter(file, ATTR_SERVICE_NAME, ExportResultCode.SUCCESS)));
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? `mailroom-${service}` }),
    spanProcessors: processors,
  });
  sdk.start();
}

/**
 * Whether this process records spans. When it does not, the hot paths (the gateway's handler, RPC
 * calls and their serving) skip the tracing API altogether: its no-op spans and contexts still cost
 * allocations on every request, which showed as garbage-collection time in the gateway's profile.
 */
export function tracingEnabled(): boolean {
  return sdk !== undefined;
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
}
