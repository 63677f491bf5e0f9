import type { FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { parse } from "cookie";
import { PROJECT_HEADER, SESSION_COOKIE, requiredRole, roleAllows, type Role, type RouteDef, type WireError } from "@mailroom/contracts";
import { isId } from "@mailroom/kit";
import { clientBucket } from "../domain/client-address.js";
import type { LookupFailures } from "../domain/lookup-failures.js";
import type { RateLimiter } from "../infra/rate-limiter.js";
import type { Sessions } from "../usecases/sessions.js";
import { rateHeaders, refuse } from "./refusals.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in user, set by a session gate; their role when the request names a project. */
    session: { token: string; userId: string; role: Role | null } | null;
  }
}

export interface SessionGateDeps {
  sessions: Sessions;
  /** Cookies that sign nobody in, charged per client address in the unknown keys' budget. */
  lookupFailures: LookupFailures;
  /** Per user, with the keys' default rate. */
  limiter: RateLimiter;
  /** PUBLIC_URL's origin: the only one a browser may change state from (CSRF defence). */
  publicOrigin: string;
}

const PROJECT = PROJECT_HEADER.toLowerCase();
const NO_SESSION: WireError = { error: "UNAUTHORIZED", message: "Not signed in, or the session has ended" };
const NOT_FOUND: WireError = { error: "NOT_FOUND", message: "Project not found" };
const CROSS_ORIGIN: WireError = { error: "FORBIDDEN", message: "Requests that change state are accepted only from the dashboard's own origin" };
const NO_PROJECT_HEADER: WireError = { error: "FORBIDDEN", message: `Requests that change state must carry the ${PROJECT_HEADER} header` };

const TOO_MANY_UNKNOWN: WireError = { error: "RATE_LIMITED", message: "Too many failed authentications from this address" };

/** How a request's cookie is charged when it signs nobody in (decisions.md §15). */
export function sessionGuard(deps: Pick<SessionGateDeps, "lookupFailures">, req: FastifyRequest) {
  return { failures: deps.lookupFailures, client: clientBucket(req.ip) };
}

/** The session cookie's token, if the request carries one. */
export function sessionToken(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parse(header)[SESSION_COOKIE] || undefined;
}

/** GET and HEAD change nothing; anything else from a browser must prove it is not a forged request. */
export const changesState = (method: string) => method !== "GET" && method !== "HEAD";

/**
 * Whether a state change may come from this request's origin. A forged cross-site form or fetch
 * cannot set X-Mailroom-Project without a CORS preflight (which the gateway never grants), and a
 * browser names its page's origin in `Origin`, which must then be the dashboard's own.
 */
export function sameOrigin(req: FastifyRequest, publicOrigin: string): boolean {
  const origin = req.headers.origin;
  return origin === undefined || origin === publicOrigin;
}

function headerValue(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The session behind a request, with the user's role in `projectId` checked against `needed`, rate
 * limited per user; then `req.session` is set. Refuses with 401 (no live session), 404 (not a member:
 * another project's id looks like no project at all), 403 (the role is too small) or 429.
 */
function admit(deps: SessionGateDeps, req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void, token: string, projectId: string | null, needed: Role | null, then?: () => void): void {
  deps.sessions
    .lookup(token, projectId, sessionGuard(deps, req))
    .then(async (found) => {
      if (found && "throttled" in found) return refuse(req, reply, TOO_MANY_UNKNOWN, found.throttled);
      if (!found) return refuse(req, reply, NO_SESSION);
      if (needed) {
        if (!found.role) return refuse(req, reply, NOT_FOUND);
        if (!roleAllows(found.role, needed)) return refuse(req, reply, { error: "FORBIDDEN", message: `This needs the ${needed} role in the project` });
      }
      const decision = await deps.limiter.take(`user:${found.userId}`);
      if (decision.enforced) rateHeaders(reply, decision);
      if (!decision.allowed) return refuse(req, reply, { error: "RATE_LIMITED", message: "Too many requests for this user" }, decision.resetSeconds);
      req.session = { token, userId: found.userId, role: found.role };
      then?.();
      done();
    })
    .catch(done);
}

/**
 * An API route (ROUTES) called with the session cookie and no Authorization header: the project is
 * the X-Mailroom-Project header's, the route's least role applies (decisions.md §13), and the
 * request then goes on as one made with a secret key of that project.
 */
export function apiSessionGate(route: RouteDef, deps: SessionGateDeps): onRequestHookHandler {
  const needed = requiredRole(route);
  const changes = changesState(route.method);
  return (req, reply, done) => {
    const token = sessionToken(req)!;
    if (changes && !sameOrigin(req, deps.publicOrigin)) return refuse(req, reply, CROSS_ORIGIN);
    const projectId = headerValue(req, PROJECT);
    if (projectId === undefined) {
      if (changes) return refuse(req, reply, NO_PROJECT_HEADER);
      return refuse(req, reply, {
        error: "VALIDATION_ERROR",
        message: `A signed-in request must name its project in the ${PROJECT_HEADER} header`,
        details: [{ path: `headers.${PROJECT}`, message: "required" }],
      });
    }
    if (!isId(projectId)) return refuse(req, reply, NOT_FOUND);
    admit(deps, req, reply, done, token, projectId, needed, () => {
      req.principal = { id: `user:${req.session!.userId}`, projectId, kind: "secret", rateLimit: null };
    });
  };
}

/**
 * The gateway's own session routes (accounts.ts): /auth/logout and /auth/me need only a live
 * session; /projects/:id/… need the route's role in that project. Their state changes carry the
 * project header too, and come from the dashboard's origin.
 */
export function accountSessionGate(route: RouteDef, deps: SessionGateDeps): onRequestHookHandler {
  const scoped = route.path.startsWith("/projects/:id");
  const needed = scoped ? requiredRole(route) : null;
  const changes = changesState(route.method);
  return (req, reply, done) => {
    const token = sessionToken(req);
    if (!token) return refuse(req, reply, NO_SESSION);
    if (changes && !sameOrigin(req, deps.publicOrigin)) return refuse(req, reply, CROSS_ORIGIN);
    let projectId: string | null = null;
    if (scoped) {
      projectId = (req.params as { id?: string }).id ?? null;
      if (!isId(projectId)) return refuse(req, reply, NOT_FOUND);
      if (changes && headerValue(req, PROJECT) === undefined) return refuse(req, reply, NO_PROJECT_HEADER);
    }
    admit(deps, req, reply, done, token, projectId, needed);
  };
}
