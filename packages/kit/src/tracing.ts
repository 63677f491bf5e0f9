import { SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import { tracingEnabled } from "./telemetry.js";

const tracer = trace.getTracer("mailroom");

/** Runs `fn` inside a span named `name` (SMTP sends, webhook calls, anything worth timing). */
export async function withSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, kind = SpanKind.INTERNAL): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: String((err as Error)?.message ?? err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * postgres.js has no automatic instrumentation, so repositories are wrapped instead: every method
 * call becomes a client span `db <Repo>.<method>`. Wrap at definition:
 * `export const contactsRepo = traced("ContactsRepo", { … })`. With tracing off (the default) a
 * method is handed out as it is: repositories sit on the hottest paths, and a no-op span and an
 * extra promise per call are not free.
 */
export function traced<T extends object>(component: string, target: T): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function" || typeof prop !== "string" || prop === "constructor" || !tracingEnabled()) return value;
      const name = `db ${component}.${prop}`;
      // The call runs inside the span, so the span covers the whole query and nests what it calls.
      return (...args: unknown[]) =>
        tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes: { "db.system.name": "postgresql" } }, (span) => {
          const fail = (err: unknown) => {
            span.setStatus({ code: SpanStatusCode.ERROR, message: String((err as Error)?.message ?? err) });
            span.end();
            throw err;
          };
          let result: unknown;
          try {
            result = value.apply(obj, args);
          } catch (err) {
            return fail(err);
          }
          if (!(result instanceof Promise)) {
            span.end();
            return result;
          }
          return result.then((v) => {
            span.end();
            return v;
          }, fail);
        });
    },
  });
}
