import { AppError, SessionInfo, type User } from "@mailroom/contracts";
import type { Sql } from "@mailroom/kit";
import { invitationsRepo } from "../db/invitations-repo.js";
import { usersRepo } from "../db/users-repo.js";
import { hashKey } from "../domain/keys.js";
import { hashPassword, verifyPassword } from "../domain/passwords.js";
import type { LoginThrottle } from "../infra/login-throttle.js";
import type { Sessions } from "./sessions.js";

const INVITATION_NOT_FOUND = new AppError("NOT_FOUND", "Invitation not found, used or expired");

export type Login = { kind: "signedIn"; user: User } | { kind: "throttled"; retryAfterSeconds: number } | { kind: "denied" };

/** Whether a password is the account's: "ok", "wrong", or the seconds to wait (nothing was hashed). */
export type PasswordCheck = "ok" | "wrong" | { wait: number };

/** What proves the account an invitation is for, when it has one (decisions.md §15). */
export interface AccountProof {
  /** The user the request's signed-in session belongs to, if any. */
  sessionUserId: string | null;
  /** The session lookup was refused: the client spent its budget of cookies that sign nobody in. */
  sessionThrottled: number | null;
  password: string | undefined;
}

export type Acceptance = { kind: "accepted"; user: User } | { kind: "throttled"; retryAfterSeconds: number } | { kind: "accountExists" };

/** Users signing in (decisions.md §13): by password, by invitation, or through the identity provider. */
export class Accounts {
  constructor(
    private readonly sql: Sql,
    private readonly throttle: LoginThrottle,
    private readonly sessions: Sessions,
  ) {}

  /**
   * Whether `password` is the account's, counted by the sign-in throttle before it is hashed
   * (decisions.md §15), so parallel guesses are limited exactly like serial ones.
   */
  private async checkPassword(email: string, hash: string | null, password: string, client: string): Promise<PasswordCheck> {
    const wait = await this.throttle.attempt(email, client);
    if (wait !== null) return { wait };
    if (!(await verifyPassword(hash, password))) return "wrong";
    await this.throttle.succeeded(email, client);
    return "ok";
  }

  /** A password sign-in, throttled per email and per client address before the password is checked. */
  async login(email: string, password: string, client: string): Promise<Login> {
    const user = await usersRepo.findByEmail(this.sql, email);
    const checked = await this.checkPassword(email, user?.passwordHash ?? null, password, client);
    if (typeof checked === "object") return { kind: "throttled", retryAfterSeconds: checked.wait };
    if (checked === "wrong" || !user) return { kind: "denied" };
    return { kind: "signedIn", user };
  }

  /** A new password, given the current one; the user's other sessions end (`keep` goes on). */
  async changePassword(userId: string, current: string, next: string, client: string, keep: string): Promise<PasswordCheck | "gone"> {
    const user = await usersRepo.get(this.sql, userId);
    const account = user && (await usersRepo.findByEmail(this.sql, user.email));
    if (!account) return "gone";
    const checked = await this.checkPassword(account.email, account.passwordHash, current, client);
    if (checked !== "ok") return checked;
    await usersRepo.setPassword(this.sql, account.id, await hashPassword(next));
    await this.sessions.revokeAll(account.id, keep);
    return "ok";
  }

  user(userId: string): Promise<User | null> {
    return usersRepo.get(this.sql, userId);
  }

  /** What the dashboard is told about the signed-in user: who, and the projects they belong to. */
  async sessionInfo(user: User): Promise<SessionInfo> {
    const projects = await usersRepo.projectsOf(this.sql, user.id);
    return SessionInfo.parse({ user: { id: user.id, email: user.email, name: user.name, createdAt: user.createdAt }, projects });
  }

  /**
   * The token came by email, so holding it proves the address: a new address gets an account
   * (name and password). An address with an account gets the membership only when the request
   * proves that account too (its signed-in session, or its password), and keeps its password.
   */
  async acceptInvitation(token: string, name: string, proof: AccountProof, client: string): Promise<Acceptance> {
    const tokenHash = hashKey(token);
    const invitation = await invitationsRepo.byToken(this.sql, tokenHash);
    if (!invitation) throw INVITATION_NOT_FOUND;
    const existing = await usersRepo.findByEmail(this.sql, invitation.email);
    if (existing) {
      const refused = await this.accountProofMissing(existing, proof, client);
      if (refused) return refused;
    } else if (!proof.password) {
      throw AppError.validation("Request validation failed", [{ path: "password", message: "required for a new account" }]);
    }
    const user = (await this.sql.begin(async (tx) => {
      const accepted = await invitationsRepo.accept(tx, tokenHash);
      if (!accepted) throw INVITATION_NOT_FOUND;
      const found: User | null = existing ?? (await usersRepo.create(tx, accepted.email, name, await hashPassword(proof.password!)));
      if (!found) throw new AppError("CONFLICT", "An account for this address was created meanwhile; try again");
      await usersRepo.addMember(tx, accepted.project_id, found.id, accepted.role);
      return found;
    })) as User;
    return { kind: "accepted", user };
  }

  /** Null when the request proves the existing account; else why not. */
  private async accountProofMissing(user: User & { passwordHash: string | null }, proof: AccountProof, client: string): Promise<Acceptance | null> {
    if (proof.sessionThrottled !== null) return { kind: "throttled", retryAfterSeconds: proof.sessionThrottled };
    if (proof.sessionUserId === user.id) return null;
    if (proof.password !== undefined && user.passwordHash) {
      const checked = await this.checkPassword(user.email, user.passwordHash, proof.password, client);
      if (checked === "ok") return null;
      if (checked !== "wrong") return { kind: "throttled", retryAfterSeconds: checked.wait };
    }
    return { kind: "accountExists" };
  }

  /**
   * A verified email from the identity provider: an existing user's, or one with pending invitations
   * (accepted on the way in: the account is made then, without a password). Null: neither.
   */
  fromIdentityProvider(email: string, name: string | undefined): Promise<User | null> {
    return this.sql.begin(async (tx) => {
      const invited = await invitationsRepo.acceptAllFor(tx, email);
      let found: User | null = await usersRepo.findByEmail(tx, email);
      if (!found && invited.length === 0) return null;
      if (!found) found = await usersRepo.create(tx, email, name?.trim() ? name.trim().slice(0, 200) : email, null);
      if (!found) return null;
      for (const inv of invited) await usersRepo.addMember(tx, inv.project_id, found.id, inv.role);
      return found;
    }) as Promise<User | null>;
  }
}
