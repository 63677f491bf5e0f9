import { AppError, SessionInfo, type User } from "@mailroom/contracts";
import type { Sql } from "@mailroom/kit";
import { invitationsRepo } from "../db/invitations-repo.js";
import { usersRepo } from "../db/users-repo.js";
import { hashKey } from "../domain/keys.js";
import { hashPassword, verifyPassword } from "../domain/passwords.js";
import type { LoginThrottle } from "../infra/login-throttle.js";

export type Login = { kind: "signedIn"; user: User } | { kind: "throttled"; retryAfterSeconds: number } | { kind: "denied" };

/** Users signing in (decisions.md §13): by password, by invitation, or through the identity provider. */
export class Accounts {
  constructor(
    private readonly sql: Sql,
    private readonly throttle: LoginThrottle,
  ) {}

  /** A password sign-in, throttled per email and per client address before the password is checked. */
  async login(email: string, password: string, client: string): Promise<Login> {
    const wait = await this.throttle.blocked(email, client);
    if (wait !== null) return { kind: "throttled", retryAfterSeconds: wait };
    const user = await usersRepo.findByEmail(this.sql, email);
    if (!(await verifyPassword(user?.passwordHash ?? null, password)) || !user) {
      await this.throttle.failed(email, client);
      return { kind: "denied" };
    }
    await this.throttle.succeeded(email, client);
    return { kind: "signedIn", user };
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
   * (name and password), one with an account gets the membership and keeps its password.
   */
  acceptInvitation(token: string, name: string, password: string | undefined): Promise<User> {
    return this.sql.begin(async (tx) => {
      const invitation = await invitationsRepo.accept(tx, hashKey(token));
      if (!invitation) throw new AppError("NOT_FOUND", "Invitation not found, used or expired");
      let found: User | null = await usersRepo.findByEmail(tx, invitation.email);
      if (!found) {
        if (!password) throw AppError.validation("Request validation failed", [{ path: "password", message: "required for a new account" }]);
        found = await usersRepo.create(tx, invitation.email, name, await hashPassword(password));
        if (!found) throw new AppError("CONFLICT", "An account for this address was created meanwhile; try again");
      }
      await usersRepo.addMember(tx, invitation.project_id, found.id, invitation.role);
      return found;
    }) as Promise<User>;
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
