import { randomBytes } from "node:crypto";
import { AppError, type Member, type Role, sendingRpc } from "@mailroom/contracts";
import { isId, type RpcClient, type Sql } from "@mailroom/kit";
import { invitationsRepo } from "../db/invitations-repo.js";
import { keysRepo } from "../db/keys-repo.js";
import { usersRepo } from "../db/users-repo.js";
import { invitationEmail } from "../domain/invitation-email.js";
import { hashKey } from "../domain/keys.js";

const LAST_OWNER = "A project keeps at least one owner: make another member owner first";

/**
 * The members of a project and its invitations (decisions.md §13). The session gate has checked that
 * the signed-in user is a member with the route's role before any of these runs.
 */
export class Members {
  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly opts: { publicUrl: string; invitationTtlMs: number },
  ) {}

  async list(projectId: string): Promise<Member[]> {
    const [members, pending] = await Promise.all([usersRepo.members(this.sql, projectId), invitationsRepo.pending(this.sql, projectId)]);
    return [...members, ...pending];
  }

  /** A pending member, told by email (sending.systemEmail); an invitation nobody was told of is withdrawn. */
  /**
   * One invitation email per address and project an hour (decisions.md §15): inviting again within
   * the hour sends nothing and answers the pending invitation (with the role now asked); with none
   * pending (it was withdrawn), the seconds to wait.
   */
  async invite(projectId: string, inviterId: string, email: string, role: Role): Promise<Member | { retryAfterSeconds: number }> {
    if (await usersRepo.memberByEmail(this.sql, projectId, email)) throw new AppError("CONFLICT", `${email} is a member of the project already`);
    const token = randomBytes(32).toString("base64url");
    const ttlMs = this.opts.invitationTtlMs;
    const made = (await this.sql.begin(async (tx) => {
      const sentAt = await invitationsRepo.claimMailing(tx, projectId, email);
      if (!sentAt) return null;
      const invitation = await invitationsRepo.create(tx, { projectId, email, role, tokenHash: hashKey(token), invitedBy: inviterId, ttlMs });
      return { invitation, sentAt };
    })) as { invitation: Member; sentAt: Date } | null;
    if (!made) {
      const pending = await invitationsRepo.pendingTo(this.sql, projectId, email, role);
      return pending ?? { retryAfterSeconds: 3600 };
    }
    const { invitation, sentAt } = made;
    const [inviter, projectName] = await Promise.all([usersRepo.get(this.sql, inviterId), keysRepo.projectName(this.sql, projectId)]);
    const link = new URL(`/app/invite?token=${encodeURIComponent(token)}`, this.opts.publicUrl).toString();
    const content = invitationEmail({ projectName: projectName ?? "a project", inviter: inviter?.name || inviter?.email || "Someone", role, link, ttlMs });
    try {
      await this.rpc.call(sendingRpc.systemEmail, { projectId, idempotencyKey: `invitation:${invitation.userId}`, to: email, ...content });
    } catch (err) {
      // an invitation nobody was told of would only confuse the members list; the hour's email is not spent
      await invitationsRepo.withdraw(this.sql, projectId, invitation.userId).catch(() => undefined);
      await invitationsRepo.releaseMailing(this.sql, projectId, email, sentAt).catch(() => undefined);
      throw err;
    }
    return invitation;
  }

  /** Invitation mailings older than the hour they hold an address for. */
  pruneMailings(): Promise<void> {
    return invitationsRepo.pruneMailings(this.sql);
  }

  /** A member's new role; the last owner stays owner. */
  async setRole(projectId: string, userId: string, role: Role): Promise<Member> {
    if (!isId(userId)) throw AppError.notFound("Member");
    return (await this.sql.begin(async (tx) => {
      const owners = await usersRepo.lockOwners(tx, projectId);
      const found = await usersRepo.member(tx, projectId, userId);
      if (!found) throw AppError.notFound("Member");
      if (found.role === "owner" && role !== "owner" && owners.length === 1) throw new AppError("CONFLICT", LAST_OWNER);
      await usersRepo.setRole(tx, projectId, userId, role);
      return { ...found, role };
    })) as Member;
  }

  /** Removes the membership (or withdraws the invitation) only: the user's sessions go on, for their other projects. */
  async remove(projectId: string, userId: string): Promise<void> {
    if (!isId(userId)) throw AppError.notFound("Member");
    const removed = await this.sql.begin(async (tx) => {
      const owners = await usersRepo.lockOwners(tx, projectId);
      if (owners.length === 1 && owners[0] === userId) throw new AppError("CONFLICT", LAST_OWNER);
      return (await usersRepo.removeMember(tx, projectId, userId)) || (await invitationsRepo.withdraw(tx, projectId, userId));
    });
    if (!removed) throw AppError.notFound("Member");
  }
}
