import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { serialize } from "cookie";
import {
  AcceptInvitationRequest,
  AppError,
  ChangePasswordRequest,
  LoginRequest,
  SESSION_COOKIE,
  type SessionInfo,
  accountRoutes,
  bodyLimitOf,
  type RouteDef,
  type User,
  type WireError,
} from "@mailroom/contracts";
import type { Accounts } from "../usecases/accounts.js";
import type { Sessions } from "../usecases/sessions.js";
import { sendError } from "./errors.js";
import { validate } from "./forward.js";
import { accountSessionGate, changesState, sameOrigin, sessionGuard, sessionToken, type SessionGateDeps } from "./session-gate.js";
import { memberHandlers, type MemberDeps } from "./members.js";

export interface AccountDeps extends SessionGateDeps, MemberDeps {
  accounts: Accounts;
  sessions: Sessions;
  /** The session cookie is `Secure` when PUBLIC_URL is https. */
  secureCookie: boolean;
}

export type AccountHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

const BAD_LOGIN = { error: "UNAUTHORIZED", message: "Wrong email or password" } as const;
const ACCOUNT_EXISTS: WireError = {
  error: "UNAUTHORIZED",
  message: "This address has an account: sign in to it first, or give its password",
  reason: "account_exists",
};

function throttled(reply: FastifyReply, wait: number): FastifyReply {
  reply.header("Retry-After", String(wait));
  return sendError(reply, { error: "RATE_LIMITED", message: "Too many failed sign-ins; try again later" });
}

const clearCookie = (reply: FastifyReply, deps: Pick<AccountDeps, "secureCookie">) =>
  reply.header("set-cookie", serialize(SESSION_COOKIE, "", { httpOnly: true, sameSite: "lax", path: "/", secure: deps.secureCookie, maxAge: 0 }));

export function setSessionCookie(reply: FastifyReply, token: string, deps: Pick<AccountDeps, "secureCookie" | "sessions">): void {
  const maxAge = Math.floor(deps.sessions.times.maxMs / 1000);
  reply.header("set-cookie", serialize(SESSION_COOKIE, token, { httpOnly: true, sameSite: "lax", path: "/", secure: deps.secureCookie, maxAge }));
}

/** A new session for `user`: the cookie, and SessionInfo as the answer. */
export async function signIn(reply: FastifyReply, user: User, deps: Pick<AccountDeps, "accounts" | "secureCookie" | "sessions">): Promise<SessionInfo> {
  setSessionCookie(reply, await deps.sessions.create(user.id), deps);
  return deps.accounts.sessionInfo(user);
}

function authHandlers(deps: AccountDeps): Record<string, AccountHandler> {
  return {
    "gateway.auth.login": async (req, reply) => {
      const { email, password } = LoginRequest.parse(req.body);
      const login = await deps.accounts.login(email, password, req.ip);
      if (login.kind === "throttled") return throttled(reply, login.retryAfterSeconds);
      if (login.kind === "denied") return sendError(reply, BAD_LOGIN);
      return reply.code(200).send(await signIn(reply, login.user, deps));
    },

    "gateway.auth.logout": async (req, reply) => {
      await deps.sessions.revoke(req.session!.token);
      return clearCookie(reply, deps).code(204).send();
    },

    /** Every session of the user ends, this one included (the account menu's "Sign out everywhere"). */
    "gateway.auth.logoutEverywhere": async (req, reply) => {
      await deps.sessions.revokeAll(req.session!.userId);
      return clearCookie(reply, deps).code(204).send();
    },

    /** Needs the current password; the user's other sessions end, this browser's goes on. */
    "gateway.auth.changePassword": async (req, reply) => {
      const { currentPassword, newPassword } = ChangePasswordRequest.parse(req.body);
      const changed = await deps.accounts.changePassword(req.session!.userId, currentPassword, newPassword, req.ip, req.session!.token);
      if (changed === "gone") return sendError(reply, { error: "UNAUTHORIZED", message: "Not signed in, or the session has ended" });
      if (typeof changed === "object") return throttled(reply, changed.wait);
      if (changed === "wrong") {
        const message = "The current password is wrong";
        return sendError(reply, { error: "VALIDATION_ERROR", message, details: [{ path: "currentPassword", message }] });
      }
      return reply.code(204).send();
    },

    "gateway.auth.me": async (req, reply) => {
      const user = await deps.accounts.user(req.session!.userId);
      if (!user) return sendError(reply, { error: "UNAUTHORIZED", message: "Not signed in, or the session has ended" });
      return reply.code(200).send(await deps.accounts.sessionInfo(user));
    },

    /** An address with an account proves it too: its signed-in session, or its password (decisions.md §15). */
    "gateway.auth.acceptInvitation": async (req, reply) => {
      const body = AcceptInvitationRequest.parse(req.body);
      const token = sessionToken(req);
      const found = token ? await deps.sessions.lookup(token, null, sessionGuard(deps, req)) : null;
      const proof = {
        sessionUserId: found && !("throttled" in found) ? found.userId : null,
        sessionThrottled: found && "throttled" in found ? found.throttled : null,
        password: body.password,
      };
      const accepted = await deps.accounts.acceptInvitation(body.token, body.name, proof, req.ip);
      if (accepted.kind === "throttled") return throttled(reply, accepted.retryAfterSeconds);
      if (accepted.kind === "accountExists") return sendError(reply, ACCOUNT_EXISTS);
      return reply.code(200).send(await signIn(reply, accepted.user, deps));
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
