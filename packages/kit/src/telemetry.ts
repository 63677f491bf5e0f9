import { NodeSDK } from "@opentelemetry/sdk-node";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { appendFileSync } from "node:fs";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";

/**
 * Writes finished spans as JSON lines to a file. Used by tests (MAILROOM_TRACE_FILE) to assert
 * that one request yields one trace across processes, without an OTLP collector.
 */
class FileSpanExporter implements SpanExporter {
  constructor(private readonly file: string) {}
  export(spans: ReadableSpan[], done: (r: ExportResult) => void): void {
    const lines = spans.map((s) =>
      JSON.stringify({
        traceId: s.spanContext().traceId,
        spanId: s.spanContext().spanId,
        parentSpanId: s.parentSpanContext?.spanId ?? null,
        name: s.name,
        service: s.resource.attributes[ATTR_SERVICE_NAME],
        attributes: s.attributes,
      }),
    );
    if (lines.length) appendFileSync(this.file, `${lines.join("\n")}\n`);
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
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
  const processors = [];
  if (otlp) processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  if (file) processors.push(new SimpleSpanProcessor(new FileSpanExporter(file)));
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
