import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { SpanKind, SpanStatusCode, context, propagation, trace } from "@opentelemetry/api";
import { HttpReply, zodDetails, type ErrorDetail, type HttpRequest, type RouteDef } from "@mailroom/contracts";
import { tracingEnabled } from "@mailroom/kit";
import type { IdempotencyKey, IdempotencyKeys } from "../usecases/idempotency.js";
import { forwardSettled, type ForwardingDeps } from "../usecases/forwarding.js";
import { sendError } from "./errors.js";
import { MAX_NESTING, nestsDeeperThan, unstorableText } from "../domain/storable-text.js";

export interface ForwardDeps extends ForwardingDeps {
  idempotency: IdempotencyKeys;
  /** RPC_TIMEOUT_MS and ROUTE_TIMEOUT_MAX_MS (0: no cap). */
  timeouts: { defaultMs: number; maxMs: number };
}

/** How long the gateway waits for the route's service. */
export function routeTimeoutMs(route: RouteDef, timeouts: ForwardDeps["timeouts"]): number {
  const own = route.timeoutMs ?? timeouts.defaultMs;
  return timeouts.maxMs > 0 ? Math.min(own, timeouts.maxMs) : own;
}

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** Every problem of a request with its route's schemas, and text PostgreSQL could not store. */
export function validate(route: RouteDef, req: FastifyRequest): ErrorDetail[] {
  // zod validates recursively: a body nested thousands deep would overflow its stack (a 500)
  if (nestsDeeperThan(req.body)) return [{ path: "", message: `must not nest deeper than ${MAX_NESTING} levels` }];
  const details: ErrorDetail[] = [];
  schemaDetails(route.params, req.params ?? {}, "params", details);
  schemaDetails(route.query, req.query ?? {}, "query", details);
  schemaDetails(route.body, req.body ?? {}, undefined, details);
  if (details.length) return details;
  unstorableText(req.params, "params", details);
  unstorableText(req.query, "query", details);
  return unstorableText(req.body, undefined, details);
}

function schemaDetails(schema: RouteDef["body"], value: unknown, where: string | undefined, into: ErrorDetail[]): void {
  if (!schema) return;
  const r = schema.safeParse(value);
  if (!r.success) into.push(...zodDetails(r.error, where));
}

export function sendHttpReply(reply: FastifyReply, r: HttpReply): FastifyReply {
  for (const [k, v] of Object.entries(r.headers ?? {})) reply.header(k, v);
  reply.code(r.status);
  if (r.raw) return reply.type(r.raw.contentType).send(Buffer.from(r.raw.base64, "base64"));
  if (r.status === 204 || r.body === undefined) return reply.send();
  return reply.type("application/json; charset=utf-8").send(r.body);
}

/** What the service receives for `req`: who asks, the validated input, and `meta` beside the usual. */
export function httpRequestOf(req: FastifyRequest, body: unknown, meta: Partial<HttpRequest["meta"]> = {}): HttpRequest {
  const principal = req.principal;
  return {
    projectId: principal?.projectId ?? null,
    params: (req.params ?? {}) as Record<string, unknown>,
    query: (req.query ?? {}) as Record<string, unknown>,
    body,
    meta: {
      requestId: req.id,
      ip: req.ip,
      userAgent: req.headers["user-agent"],
      contentType: req.headers["content-type"],
      keyKind: principal?.kind,
      ...meta,
    },
  };
}

const tracer = trace.getTracer("mailroom-gateway");

/**
 * The one handler behind every contract route: validate → (idempotency) → forward over NATS →
 * answer (the key and the rate limits were checked before the body was read: gates.ts). Business rules live in the services, never here. Each request is a
 * server span that continues the caller's `traceparent`, so the whole path is one trace.
 */
export function forwardHandler(route: RouteDef, deps: ForwardDeps) {
  const handle = handler(route, deps);
  if (!tracingEnabled()) return handle;
  const name = `${route.method} ${route.path}`;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: { "http.route": route.path, "http.request.method": route.method } }, parent);
    try {
      return await context.with(trace.setSpan(parent, span), () => handle(req, reply));
    } finally {
      span.setAttribute("http.response.status_code", reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}

function handler(route: RouteDef, deps: ForwardDeps) {
  const routeId = `${route.method} ${route.path}`;
  const timeoutMs = routeTimeoutMs(route, deps.timeouts);
  const leaseMs = deps.idempotency.leaseFor(timeoutMs);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const principal = req.principal;
    const details = validate(route, req);
    if (details.length) return sendError(reply, { error: "VALIDATION_ERROR", message: "Request validation failed", details });

    const idemKey = route.idempotent && principal ? (req.headers["idempotency-key"] as string | undefined) : undefined;
    if (idemKey !== undefined && !IDEMPOTENCY_KEY_RE.test(idemKey)) {
      return sendError(reply, {
        error: "VALIDATION_ERROR",
        message: "Idempotency-Key must be 1 to 255 visible ASCII characters",
        details: [{ path: "headers.idempotency-key", message: "invalid" }],
      });
    }
    let claimId: string | undefined;
    const key: IdempotencyKey | undefined = idemKey && principal ? { projectId: principal.projectId, key: idemKey } : undefined;
    if (key) {
      const requestHash = createHash("sha256").update(`${routeId}\n${JSON.stringify(req.params)}\n${JSON.stringify(req.body ?? null)}`).digest("hex");
      const claim = await deps.idempotency.claim(key, routeId, requestHash, leaseMs);
      if (claim.kind === "replay") {
        reply.header("Idempotent-Replayed", "true");
        return sendHttpReply(reply, HttpReply.parse(claim.response));
      }
      if (claim.kind === "mismatch") {
        return sendError(reply, {
          error: "IDEMPOTENCY_KEY_REUSED",
          message: "This Idempotency-Key was used with a different request",
        });
      }
      if (claim.kind === "in_progress") {
        const seconds = Math.max(1, Math.ceil(claim.retryAfterMs / 1000));
        reply.header("Retry-After", String(seconds));
        return sendError(reply, {
          error: "CONFLICT",
          message: `A request with this Idempotency-Key is still being processed; retry in ${seconds} s`,
          reason: "idempotency_in_progress",
        });
      }
      claimId = claim.claimId;
    }

    const request = httpRequestOf(req, req.body ?? undefined, claimId ? { idempotencyId: claimId } : {});
    const answer = await forwardSettled(deps, route.operation, request, timeoutMs, claimId && key ? { key, claimId, keys: deps.idempotency } : undefined);
    if (!answer.ok) return sendError(reply, answer.error);
    return sendHttpReply(reply, answer.reply);
  };
}
