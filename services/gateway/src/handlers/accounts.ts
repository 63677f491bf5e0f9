import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { serialize } from "cookie";
import {
  AcceptInvitationRequest,
  AppError,
  ChangePasswordRequest,
  LoginRequest,
  SESSION_COOKIE,
  SessionInfo,
  accountRoutes,
  bodyLimitOf,
  type RouteDef,
  type User,
  type WireError,
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
import { accountSessionGate, changesState, sameOrigin, sessionGuard, sessionToken, type SessionGateDeps } from "./session-gate.js";
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
const INVITATION_NOT_FOUND = new AppError("NOT_FOUND", "Invitation not found, used or expired");

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

const clearCookie = (reply: FastifyReply, deps: Pick<AccountDeps, "secureCookie">) =>
  reply.header("set-cookie", serialize(SESSION_COOKIE, "", { httpOnly: true, sameSite: "lax", path: "/", secure: deps.secureCookie, maxAge: 0 }));

/**
 * Whether `password` is the account's, counted by the sign-in throttle before it is hashed
 * (decisions.md §15): "ok", "wrong", or the seconds to wait when the address or the client has
 * spent its attempts (nothing is hashed then).
 */
async function checkPassword(deps: AccountDeps, req: FastifyRequest, email: string, hash: string | null, password: string): Promise<"ok" | "wrong" | { wait: number }> {
  const wait = await deps.throttle.attempt(email, req.ip);
  if (wait !== null) return { wait };
  if (!(await verifyPassword(hash, password))) return "wrong";
  await deps.throttle.succeeded(email, req.ip);
  return "ok";
}

function throttled(reply: FastifyReply, wait: number): FastifyReply {
  reply.header("Retry-After", String(wait));
  return sendError(reply, { error: "RATE_LIMITED", message: "Too many failed sign-ins; try again later" });
}

const ACCOUNT_EXISTS: WireError = {
  error: "UNAUTHORIZED",
  message: "This address has an account: sign in to it first, or give its password",
  reason: "account_exists",
};

/**
 * Accepting an invitation to an address that has an account proves the account, not only the
 * mailbox (decisions.md §15): the request carries that account's signed-in session, or its
 * password. Null when it does; else why not (an error, or the seconds to wait when throttled).
 * (Never a FastifyReply: a reply is a thenable, and an async function returning one resolves to
 * what it resolves to, not to the reply.)
 */
async function accountProof(deps: AccountDeps, req: FastifyRequest, user: User & { passwordHash: string | null }, password: string | undefined) {
  const token = sessionToken(req);
  if (token) {
    const found = await deps.sessions.lookup(token, null, sessionGuard(deps, req));
    if (found && "throttled" in found) return { wait: found.throttled };
    if (found?.userId === user.id) return null;
  }
  if (password !== undefined && user.passwordHash) {
    const checked = await checkPassword(deps, req, user.email, user.passwordHash, password);
    if (checked === "ok") return null;
    if (checked !== "wrong") return checked;
  }
  return ACCOUNT_EXISTS;
}

function authHandlers(deps: AccountDeps): Record<string, AccountHandler> {
  return {
    "gateway.auth.login": async (req, reply) => {
      const { email, password } = LoginRequest.parse(req.body);
      const user = await usersRepo.findByEmail(deps.sql, email);
      const checked = await checkPassword(deps, req, email, user?.passwordHash ?? null, password);
      if (typeof checked === "object") return throttled(reply, checked.wait);
      if (checked === "wrong" || !user) return sendError(reply, BAD_LOGIN);
      return reply.code(200).send(await signIn(reply, user, deps));
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
      const user = await usersRepo.get(deps.sql, req.session!.userId);
      const account = user && (await usersRepo.findByEmail(deps.sql, user.email));
      if (!account) return sendError(reply, { error: "UNAUTHORIZED", message: "Not signed in, or the session has ended" });
      const checked = await checkPassword(deps, req, account.email, account.passwordHash, currentPassword);
      if (typeof checked === "object") return throttled(reply, checked.wait);
      if (checked === "wrong") {
        const message = "The current password is wrong";
        return sendError(reply, { error: "VALIDATION_ERROR", message, details: [{ path: "currentPassword", message }] });
      }
      await usersRepo.setPassword(deps.sql, account.id, await hashPassword(newPassword));
      await deps.sessions.revokeAll(account.id, req.session!.token);
      return reply.code(204).send();
    },

    "gateway.auth.me": async (req, reply) => {
      const user = await usersRepo.get(deps.sql, req.session!.userId);
      if (!user) return sendError(reply, { error: "UNAUTHORIZED", message: "Not signed in, or the session has ended" });
      return reply.code(200).send(await sessionInfo(deps.sql, user));
    },

    /**
     * The token came by email, so holding it proves the address: a new address gets an account
     * (name and password). An address with an account gets the membership only when the request
     * proves that account too (accountProof), and keeps its password.
     */
    "gateway.auth.acceptInvitation": async (req, reply) => {
      const body = AcceptInvitationRequest.parse(req.body);
      const tokenHash = hashKey(body.token);
      const invitation = await invitationsRepo.byToken(deps.sql, tokenHash);
      if (!invitation) throw INVITATION_NOT_FOUND;
      const existing = await usersRepo.findByEmail(deps.sql, invitation.email);
      if (existing) {
        const refused = await accountProof(deps, req, existing, body.password);
        if (refused) return "wait" in refused ? throttled(reply, refused.wait) : sendError(reply, refused);
      } else if (!body.password) {
        throw AppError.validation("Request validation failed", [{ path: "password", message: "required for a new account" }]);
      }
      const user = await deps.sql.begin(async (tx) => {
        const accepted = await invitationsRepo.accept(tx, tokenHash);
        if (!accepted) throw INVITATION_NOT_FOUND;
        const found: User | null = existing ?? (await usersRepo.create(tx, accepted.email, body.name, await hashPassword(body.password!)));
        if (!found) throw new AppError("CONFLICT", "An account for this address was created meanwhile; try again");
        await usersRepo.addMember(tx, accepted.project_id, found.id, accepted.role);
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
