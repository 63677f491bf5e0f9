import type { FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import type { RouteDef, WireError } from "@mailroom/contracts";
import type { Authenticator, Principal } from "../domain/authenticator.js";
import { clientBucket } from "../domain/client-address.js";
import type { RateDecision, RateLimiter } from "../domain/rate-limiter.js";
import { UNAUTHORIZED, sendError } from "./errors.js";
import { apiSessionGate, sessionToken, type SessionGateDeps } from "./session-gate.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The caller's key, set by the key gate of a keyed route before its body is read. */
    principal: Principal | null;
  }
}

export interface GateDeps extends SessionGateDeps {
  auth: Authenticator;
  /** Per key. */
  limiter: RateLimiter;
  /** Per client address, on the routes without a key. */
  keyless: RateLimiter;
}

/**
 * An answer given before the body was read (onRequest). The connection closes after it when a body
 * is on its way, so the gateway does not read, only to throw away, what it already refused.
 */
export function refuse(req: FastifyRequest, reply: FastifyReply, err: WireError, retryAfter?: number): void {
  if (retryAfter !== undefined) reply.header("Retry-After", String(retryAfter));
  const length = req.headers["content-length"];
  if ((length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined) reply.header("Connection", "close");
  sendError(reply, err);
}

export function rateHeaders(reply: FastifyReply, d: RateDecision): void {
  reply.header("RateLimit-Limit", String(d.limit));
  reply.header("RateLimit-Remaining", String(d.remaining));
  reply.header("RateLimit-Reset", String(d.resetSeconds));
}

/**
 * Keyed routes (decisions.md §13: or a session): the key and its rate limit are checked when the headers arrive, before the body is
 * read, so a caller without a valid key cannot make the gateway read (and hold) a 50 MB body. Hooks
 * are callback-style: an async hook costs a promise and a microtask per request.
 */
export function keyGate(route: RouteDef, deps: GateDeps): onRequestHookHandler {
  const need = route.auth === "any" ? "any" : "secret";
  // A dashboard request: the session cookie and no key (a key, when given, always decides).
  const session = apiSessionGate(route, deps);
  return (req, reply, done) => {
    if (req.headers.authorization === undefined && sessionToken(req) !== undefined) return session.call(req.server, req, reply, done);
    deps.auth
      .authenticate(req.headers.authorization, need, clientBucket(req.ip))
      .then(async (result) => {
        if (result.kind === "throttled") {
          return refuse(req, reply, { error: "RATE_LIMITED", message: "Too many failed authentications from this address" }, result.retryAfterSeconds);
        }
        if (result.kind === "denied") return refuse(req, reply, UNAUTHORIZED);
        const decision = await deps.limiter.take(result.principal.id, result.principal.rateLimit);
        if (decision.enforced) rateHeaders(reply, decision);
        if (!decision.allowed) return refuse(req, reply, { error: "RATE_LIMITED", message: "Too many requests for this API key" }, decision.resetSeconds);
        req.principal = result.principal;
        done();
      })
      .catch(done);
  };
}

/** Routes without a key (links, pixels, the SES webhook, the API reference): a bucket per client address. */
export function keylessGate(deps: GateDeps): onRequestHookHandler {
  return (req, reply, done) => {
    deps.keyless
      .take(`ip:${clientBucket(req.ip)}`)
      .then((decision) => {
        if (decision.allowed) return done();
        refuse(req, reply, { error: "RATE_LIMITED", message: "Too many requests from this address" }, decision.resetSeconds);
      })
      .catch(done);
  };
}
