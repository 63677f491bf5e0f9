import { pino, type Logger } from "pino";
import { trace } from "@opentelemetry/api";

export type { Logger };

/**
 * JSON logs with the active trace and span ids. Keys, secrets and message bodies must never reach
 * a log line: the redact list is the safety net, not the plan (handlers do not log payloads).
 */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    messageKey: "msg",
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        "authorization",
        "*.authorization",
        "headers.authorization",
        "*.headers.authorization",
        "secretKey",
        "*.secretKey",
        "publicKey",
        "*.publicKey",
        "apiKey",
        "*.apiKey",
        "password",
        "*.password",
        "body",
        "*.body",
      ],
      censor: "[redacted]",
    },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const ctx = span.spanContext();
      return { trace_id: ctx.traceId, span_id: ctx.spanId };
    },
  });
}
