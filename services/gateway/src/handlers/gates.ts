import type { onRequestHookHandler } from "fastify";
import type { RouteDef } from "@mailroom/contracts";
import type { Authenticator, Principal } from "../domain/authenticator.js";
import { clientBucket } from "../domain/client-address.js";
import type { RateLimiter } from "../infra/rate-limiter.js";
import { UNAUTHORIZED } from "./errors.js";
import { rateHeaders, refuse } from "./refusals.js";
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
  /**
   * Per client address for a route that sets `clientLimitPerMinute` (the form submissions, whose
   * figure the gateway's FORM_SUBMISSIONS_PER_MINUTE may change).
   */
  clientLimiter: (route: RouteDef) => RateLimiter;
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

/**
 * Routes without a key (links, pixels, the SES webhook, the API reference): a bucket per client
 * address; a route with `clientLimitPerMinute` (a form's submissions) also has a bucket of its own
 * per client address, taken after the shared one, before the body is read.
 */
export function keylessGate(deps: GateDeps, route?: RouteDef): onRequestHookHandler {
  const own = route?.clientLimitPerMinute ? deps.clientLimiter(route) : null;
  const ownKey = route ? `route:${route.operation}:` : "";
  return (req, reply, done) => {
    const client = clientBucket(req.ip);
    deps.keyless
      .take(`ip:${client}`)
      .then(async (decision) => {
        const limited = decision.allowed && own ? await own.take(`${ownKey}${client}`) : decision;
        if (limited.allowed) return done();
        refuse(req, reply, { error: "RATE_LIMITED", message: "Too many requests from this address" }, limited.resetSeconds);
      })
      .catch(done);
  };
}
