import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { SpanKind, SpanStatusCode, context, propagation, trace } from "@opentelemetry/api";
import { HttpReply, zodDetails, type ErrorDetail, type HttpRequest, type RouteDef } from "@mailroom/contracts";
import { tracingEnabled, type Logger, type RpcClient } from "@mailroom/kit";
import type { Authenticator, Principal } from "../domain/authenticator.js";
import type { RateLimiter } from "../domain/rate-limiter.js";
import type { IdempotencyRepo } from "../db/idempotency-repo.js";
import { sendError, UNAUTHORIZED } from "./errors.js";
import { MAX_NESTING, nestsDeeperThan, unstorableText } from "../domain/storable-text.js";

export interface ForwardDeps {
  rpc: RpcClient;
  auth: Authenticator;
  limiter: RateLimiter;
  idempotency: IdempotencyRepo;
  log: Logger;
}

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

function validate(route: RouteDef, req: FastifyRequest): ErrorDetail[] {
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

function rateHeaders(reply: FastifyReply, d: { limit: number; remaining: number; resetSeconds: number }) {
  reply.header("RateLimit-Limit", String(d.limit));
  reply.header("RateLimit-Remaining", String(d.remaining));
  reply.header("RateLimit-Reset", String(d.resetSeconds));
}

function sendHttpReply(reply: FastifyReply, r: HttpReply): FastifyReply {
  for (const [k, v] of Object.entries(r.headers ?? {})) reply.header(k, v);
  reply.code(r.status);
  if (r.raw) return reply.type(r.raw.contentType).send(Buffer.from(r.raw.base64, "base64"));
  if (r.status === 204 || r.body === undefined) return reply.send();
  return reply.type("application/json; charset=utf-8").send(r.body);
}

const tracer = trace.getTracer("mailroom-gateway");

/**
 * The one handler behind every contract route: authenticate → rate-limit → validate → (idempotency)
 * → forward over NATS → answer. Business rules live in the services, never here. Each request is a
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
  return async (req: FastifyRequest, reply: FastifyReply) => {
    let principal: Principal | null = null;
    if (route.auth !== "none") {
      principal = await deps.auth.authenticate(req.headers.authorization, route.auth);
      if (!principal) return sendError(reply, UNAUTHORIZED);
      const decision = await deps.limiter.take(principal.id, principal.rateLimit);
      if (decision.enforced) rateHeaders(reply, decision);
      if (!decision.allowed) {
        reply.header("Retry-After", String(decision.resetSeconds));
        return sendError(reply, { error: "RATE_LIMITED", message: "Too many requests for this API key" });
      }
    }

    const details = validate(route, req);
    if (details.length) return sendError(reply, { error: "VALIDATION_ERROR", message: "Request validation failed", details });

    const idemKey = route.idempotent ? (req.headers["idempotency-key"] as string | undefined) : undefined;
    if (idemKey !== undefined && !IDEMPOTENCY_KEY_RE.test(idemKey)) {
      return sendError(reply, {
        error: "VALIDATION_ERROR",
        message: "Idempotency-Key must be 1 to 255 visible ASCII characters",
        details: [{ path: "headers.idempotency-key", message: "invalid" }],
      });
    }
    const routeId = `${route.method} ${route.path}`;
    const requestHash = idemKey
      ? createHash("sha256").update(`${routeId}\n${JSON.stringify(req.params)}\n${JSON.stringify(req.body ?? null)}`).digest("hex")
      : "";
    if (idemKey && principal) {
      const claim = await deps.idempotency.claim(principal.projectId, idemKey, routeId, requestHash);
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
        return sendError(reply, {
          error: "CONFLICT",
          message: "A request with this Idempotency-Key is still being processed",
          reason: "idempotency_in_progress",
        });
      }
    }

    const request: HttpRequest = {
      projectId: principal?.projectId ?? null,
      params: (req.params ?? {}) as Record<string, unknown>,
      query: (req.query ?? {}) as Record<string, unknown>,
      body: req.body ?? undefined,
      meta: {
        requestId: req.id,
        ip: req.ip,
        userAgent: req.headers["user-agent"],
        contentType: req.headers["content-type"],
        keyKind: principal?.kind,
      },
    };
    const answer = await deps.rpc.send(route.operation, request, route.timeoutMs);
    if (!answer.ok) {
      if (idemKey && principal) await deps.idempotency.release(principal.projectId, idemKey).catch(() => undefined);
      return sendError(reply, answer.error);
    }
    const parsed = HttpReply.safeParse(answer.result);
    if (!parsed.success) {
      deps.log.error({ operation: route.operation }, "service answered a malformed reply");
      if (idemKey && principal) await deps.idempotency.release(principal.projectId, idemKey).catch(() => undefined);
      return sendError(reply, { error: "INTERNAL_ERROR", message: "An internal error occurred" });
    }
    if (idemKey && principal) {
      // Only a success holds the key: a 4xx can be corrected and retried with the same key.
      if (parsed.data.status < 300) await deps.idempotency.complete(principal.projectId, idemKey, parsed.data.status, parsed.data);
      else await deps.idempotency.release(principal.projectId, idemKey);
    }
    return sendHttpReply(reply, parsed.data);
  };
}

