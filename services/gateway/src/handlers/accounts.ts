import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { serialize } from "cookie";
import {
  AcceptInvitationRequest,
  AppError,
  LoginRequest,
  SESSION_COOKIE,
  SessionInfo,
  accountRoutes,
  bodyLimitOf,
  type RouteDef,
  type User,
} from "@mailroom/contracts";
import type { Sql } from "@mailroom/kit";
import { usersRepo } from "../db/users-repo.js";
import { invitationsRepo } from "../db/invitations-repo.js";
import { hashPassword, verifyPassword } from "../domain/passwords.js";
import { hashKey } from "../domain/keys.js";
import type { LoginThrottle } from "../domain/login-throttle.js";
import type { Sessions } from "../domain/sessions.js";
import { sendError } from "./errors.js";
import { validate } from "./forward.js";
import { accountSessionGate, changesState, sameOrigin, type SessionGateDeps } from "./session-gate.js";
import { memberHandlers, type MemberDeps } from "./members.js";

export interface AccountDeps extends SessionGateDeps, MemberDeps {
  sql: Sql;
  sessions: Sessions;
  throttle: LoginThrottle;
  /** The session cookie is `Secure` when PUBLIC_URL is https. */
  secureCookie: boolean;
}

export type AccountHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

const BAD_LOGIN = { error: "UNAUTHORIZED", message: "Wrong email or password" } as const;

export function setSessionCookie(reply: FastifyReply, token: string, deps: Pick<AccountDeps, "secureCookie" | "sessions">): void {
  const maxAge = Math.floor(deps.sessions.times.maxMs / 1000);
  reply.header("set-cookie", serialize(SESSION_COOKIE, token, { httpOnly: true, sameSite: "lax", path: "/", secure: deps.secureCookie, maxAge }));
}

/** A new session for `user`: the cookie, and SessionInfo as the answer. */
export async function signIn(reply: FastifyReply, user: User, deps: Pick<AccountDeps, "sql" | "secureCookie" | "sessions">): Promise<SessionInfo> {
  setSessionCookie(reply, await deps.sessions.create(user.id), deps);
  return sessionInfo(deps.sql, user);
}

async function sessionInfo(sql: Sql, user: User): Promise<SessionInfo> {
  const projects = await usersRepo.projectsOf(sql, user.id);
  return SessionInfo.parse({ user: { id: user.id, email: user.email, name: user.name, createdAt: user.createdAt }, projects });
}

function authHandlers(deps: AccountDeps): Record<string, AccountHandler> {
  return {
    "gateway.auth.login": async (req, reply) => {
      const { email, password } = LoginRequest.parse(req.body);
      const wait = await deps.throttle.blocked(email, req.ip);
      if (wait !== null) {
        reply.header("Retry-After", String(wait));
        return sendError(reply, { error: "RATE_LIMITED", message: "Too many failed sign-ins; try again later" });
      }
      const user = await usersRepo.findByEmail(deps.sql, email);
      if (!(await verifyPassword(user?.passwordHash ?? null, password)) || !user) {
        await deps.throttle.failed(email, req.ip);
        return sendError(reply, BAD_LOGIN);
      }
      await deps.throttle.succeeded(email, req.ip);
      return reply.code(200).send(await signIn(reply, user, deps));
    },

    "gateway.auth.logout": async (req, reply) => {
      await deps.sessions.revoke(req.session!.token);
      reply.header("set-cookie", serialize(SESSION_COOKIE, "", { httpOnly: true, sameSite: "lax", path: "/", secure: deps.secureCookie, maxAge: 0 }));
      return reply.code(204).send();
    },

    "gateway.auth.me": async (req, reply) => {
      const user = await usersRepo.get(deps.sql, req.session!.userId);
      if (!user) return sendError(reply, { error: "UNAUTHORIZED", message: "Not signed in, or the session has ended" });
      return reply.code(200).send(await sessionInfo(deps.sql, user));
    },

    /**
     * The token came by email, so holding it proves the address: a new address gets an account
     * (name and password), one with an account gets the membership and keeps its password.
     */
    "gateway.auth.acceptInvitation": async (req, reply) => {
      const body = AcceptInvitationRequest.parse(req.body);
      const user = await deps.sql.begin(async (tx) => {
        const invitation = await invitationsRepo.accept(tx, hashKey(body.token));
        if (!invitation) throw new AppError("NOT_FOUND", "Invitation not found, used or expired");
        let found: User | null = await usersRepo.findByEmail(tx, invitation.email);
        if (!found) {
          if (!body.password) throw AppError.validation("Request validation failed", [{ path: "password", message: "required for a new account" }]);
          found = await usersRepo.create(tx, invitation.email, body.name, await hashPassword(body.password));
          if (!found) throw new AppError("CONFLICT", "An account for this address was created meanwhile; try again");
        }
        await usersRepo.addMember(tx, invitation.project_id, found.id, invitation.role);
        return found;
      });
      return reply.code(200).send(await signIn(reply, user, deps));
    },
  };
}

/**
 * The account routes (decisions.md §13), answered by the gateway itself: it owns users, sessions,
 * memberships and keys. Each is validated with its contract's schemas like a forwarded route; the
 * public ones (sign-in, accepting an invitation) are limited per client address and refuse a
 * foreign Origin, so another site cannot sign a browser in to an account of its choosing.
 */
export function registerAccounts(app: FastifyInstance, deps: AccountDeps, keyless: onRequestHookHandler): void {
  const handlers = { ...authHandlers(deps), ...memberHandlers(deps) };
  for (const route of accountRoutes as readonly RouteDef[]) {
    const handle = handlers[route.operation];
    if (!handle) throw new Error(`no handler for ${route.operation}`);
    app.route({
      method: route.method,
      url: route.path,
      bodyLimit: bodyLimitOf(route),
      onRequest: route.auth === "none" ? keyless : accountSessionGate(route, deps),
      handler: async (req, reply) => {
        if (route.auth === "none" && changesState(route.method) && !sameOrigin(req, deps.publicOrigin)) {
          return sendError(reply, { error: "FORBIDDEN", message: "Requests that change state are accepted only from the dashboard's own origin" });
        }
        const details = validate(route, req);
        if (details.length) return sendError(reply, { error: "VALIDATION_ERROR", message: "Request validation failed", details });
        try {
          return await handle(req, reply);
        } catch (err) {
          if (err instanceof AppError) return sendError(reply, err);
          throw err;
        }
      },
    });
  }
}
