import { randomBytes } from "node:crypto";
import {
  ApiKey,
  ApiKeyList,
  AppError,
  CreateKeyRequest,
  CreatedKey,
  InviteMemberRequest,
  KeyParams,
  Member,
  MemberList,
  MemberParams,
  ProjectParams,
  UpdateMemberRequest,
  sendingRpc,
} from "@mailroom/contracts";
import { iso, isId, isoOrNull, type RpcClient, type Sql } from "@mailroom/kit";
import { invitationsRepo } from "../db/invitations-repo.js";
import { keysRepo, type KeyListing } from "../db/keys-repo.js";
import { usersRepo } from "../db/users-repo.js";
import { invitationEmail } from "../domain/invitation-email.js";
import { hashKey } from "../domain/keys.js";
import type { AccountHandler } from "./accounts.js";

export interface MemberDeps {
  sql: Sql;
  rpc: RpcClient;
  publicUrl: string;
  invitationTtlMs: number;
  /** Evicts a revoked key here and tells every other replica to (the CLI's broadcast). */
  keyRevoked(hash: string): void;
}

const apiKey = (k: KeyListing): ApiKey => ({ ...k, createdAt: iso(k.createdAt), revokedAt: isoOrNull(k.revokedAt) });

const LAST_OWNER = "A project keeps at least one owner: make another member owner first";

/**
 * Members and keys of a project (decisions.md §13). The session gate has checked that the signed-in
 * user is a member of `:id` with the route's role before any of these runs.
 */
export function memberHandlers(deps: MemberDeps): Record<string, AccountHandler> {
  return {
    "gateway.members.list": async (req, reply) => {
      const { id } = ProjectParams.parse(req.params);
      const [members, pending] = await Promise.all([usersRepo.members(deps.sql, id), invitationsRepo.pending(deps.sql, id)]);
      return reply.code(200).send(MemberList.parse({ data: [...members, ...pending] }));
    },

    /**
     * One invitation email per address and project an hour (decisions.md §15): inviting again
     * within the hour sends nothing and answers the pending invitation (with the role now asked);
     * with none pending (it was withdrawn), 429 until the hour is over.
     */
    "gateway.members.invite": async (req, reply) => {
      const { id } = ProjectParams.parse(req.params);
      const { email, role } = InviteMemberRequest.parse(req.body);
      if (await usersRepo.memberByEmail(deps.sql, id, email)) throw new AppError("CONFLICT", `${email} is a member of the project already`);
      const token = randomBytes(32).toString("base64url");
      const made = await deps.sql.begin(async (tx) => {
        const sentAt = await invitationsRepo.claimMailing(tx, id, email);
        if (!sentAt) return null;
        const invitation = await invitationsRepo.create(tx, { projectId: id, email, role, tokenHash: hashKey(token), invitedBy: req.session!.userId, ttlMs: deps.invitationTtlMs });
        return { invitation, sentAt };
      });
      if (!made) {
        const pending = await invitationsRepo.pendingTo(deps.sql, id, email, role);
        if (pending) return reply.code(201).send(Member.parse(pending));
        reply.header("Retry-After", "3600");
        throw new AppError("RATE_LIMITED", `An invitation was emailed to ${email} less than an hour ago; invite again later`, { reason: "invitation_recently_sent" });
      }
      const { invitation, sentAt } = made;
      const [inviter, projectName] = await Promise.all([usersRepo.get(deps.sql, req.session!.userId), keysRepo.projectName(deps.sql, id)]);
      const link = new URL(`/app/invite?token=${encodeURIComponent(token)}`, deps.publicUrl).toString();
      const content = invitationEmail({ projectName: projectName ?? "a project", inviter: inviter?.name || inviter?.email || "Someone", role, link, ttlMs: deps.invitationTtlMs });
      try {
        await deps.rpc.call(sendingRpc.systemEmail, { projectId: id, idempotencyKey: `invitation:${invitation.userId}`, to: email, ...content });
      } catch (err) {
        // an invitation nobody was told of would only confuse the members list; the hour's email is not spent
        await invitationsRepo.withdraw(deps.sql, id, invitation.userId).catch(() => undefined);
        await invitationsRepo.releaseMailing(deps.sql, id, email, sentAt).catch(() => undefined);
        throw err;
      }
      return reply.code(201).send(Member.parse(invitation));
    },

    "gateway.members.update": async (req, reply) => {
      const { id, userId } = MemberParams.parse(req.params);
      const { role } = UpdateMemberRequest.parse(req.body);
      if (!isId(userId)) throw AppError.notFound("Member");
      const member = await deps.sql.begin(async (tx) => {
        const owners = await usersRepo.lockOwners(tx, id);
        const found = await usersRepo.member(tx, id, userId);
        if (!found) throw AppError.notFound("Member");
        if (found.role === "owner" && role !== "owner" && owners.length === 1) throw new AppError("CONFLICT", LAST_OWNER);
        await usersRepo.setRole(tx, id, userId, role);
        return { ...found, role };
      });
      return reply.code(200).send(Member.parse(member));
    },

    /** Removes the membership only: the user's sessions go on, for their other projects. */
    "gateway.members.remove": async (req, reply) => {
      const { id, userId } = MemberParams.parse(req.params);
      if (!isId(userId)) throw AppError.notFound("Member");
      const removed = await deps.sql.begin(async (tx) => {
        const owners = await usersRepo.lockOwners(tx, id);
        if (owners.length === 1 && owners[0] === userId) throw new AppError("CONFLICT", LAST_OWNER);
        return (await usersRepo.removeMember(tx, id, userId)) || (await invitationsRepo.withdraw(tx, id, userId));
      });
      if (!removed) throw AppError.notFound("Member");
      return reply.code(204).send();
    },

    "gateway.keys.list": async (req, reply) => {
      const { id } = ProjectParams.parse(req.params);
      return reply.code(200).send(ApiKeyList.parse({ data: (await keysRepo.listKeys(deps.sql, id)).map(apiKey) }));
    },

    "gateway.keys.create": async (req, reply) => {
      const { id } = ProjectParams.parse(req.params);
      const { kind, name, rateLimit } = CreateKeyRequest.parse(req.body);
      const created = await keysRepo.createKey(deps.sql, id, kind, rateLimit, name);
      return reply.code(201).send(CreatedKey.parse({ ...apiKey(created), key: created.key }));
    },

    "gateway.keys.revoke": async (req, reply) => {
      const { id, keyId } = KeyParams.parse(req.params);
      // an id that is no UUID names no key (the services answer such ids the same way)
      if (!isId(keyId)) throw AppError.notFound("Key");
      const hash = await keysRepo.revokeInProject(deps.sql, id, keyId);
      if (!hash) throw AppError.notFound("Key");
      deps.keyRevoked(hash);
      return reply.code(204).send();
    },
  };
}
