import {
  ApiKeyList,
  CreateKeyRequest,
  CreatedKey,
  InviteMemberRequest,
  KeyParams,
  Member,
  MemberList,
  MemberParams,
  ProjectParams,
  UpdateMemberRequest,
} from "@mailroom/contracts";
import type { ProjectKeys } from "../usecases/keys.js";
import type { Members } from "../usecases/members.js";
import type { AccountHandler } from "./accounts.js";
import { sendError } from "./errors.js";

export interface MemberDeps {
  members: Members;
  keys: ProjectKeys;
}

/**
 * Members and keys of a project (decisions.md §13). The session gate has checked that the signed-in
 * user is a member of `:id` with the route's role before any of these runs.
 */
export function memberHandlers(deps: MemberDeps): Record<string, AccountHandler> {
  return {
    "gateway.members.list": async (req, reply) => {
      const { id } = ProjectParams.parse(req.params);
      return reply.code(200).send(MemberList.parse({ data: await deps.members.list(id) }));
    },

    /**
     * One invitation email per address and project an hour (decisions.md §15): inviting again
     * within the hour sends nothing and answers the pending invitation (with the role now asked);
     * with none pending (it was withdrawn), 429 until the hour is over.
     */
    "gateway.members.invite": async (req, reply) => {
      const { id } = ProjectParams.parse(req.params);
      const { email, role } = InviteMemberRequest.parse(req.body);
      const invited = await deps.members.invite(id, req.session!.userId, email, role);
      if ("retryAfterSeconds" in invited) {
        reply.header("Retry-After", String(invited.retryAfterSeconds));
        const message = `An invitation was emailed to ${email} less than an hour ago; invite again later`;
        return sendError(reply, { error: "RATE_LIMITED", message, reason: "invitation_recently_sent" });
      }
      return reply.code(201).send(Member.parse(invited));
    },

    "gateway.members.update": async (req, reply) => {
      const { id, userId } = MemberParams.parse(req.params);
      const { role } = UpdateMemberRequest.parse(req.body);
      return reply.code(200).send(Member.parse(await deps.members.setRole(id, userId, role)));
    },

    "gateway.members.remove": async (req, reply) => {
      const { id, userId } = MemberParams.parse(req.params);
      await deps.members.remove(id, userId);
      return reply.code(204).send();
    },

    "gateway.keys.list": async (req, reply) => {
      const { id } = ProjectParams.parse(req.params);
      return reply.code(200).send(ApiKeyList.parse({ data: await deps.keys.list(id) }));
    },

    "gateway.keys.create": async (req, reply) => {
      const { id } = ProjectParams.parse(req.params);
      const { kind, name, rateLimit } = CreateKeyRequest.parse(req.body);
      return reply.code(201).send(CreatedKey.parse(await deps.keys.create(id, kind, rateLimit, name)));
    },

    "gateway.keys.revoke": async (req, reply) => {
      const { id, keyId } = KeyParams.parse(req.params);
      await deps.keys.revoke(id, keyId);
      return reply.code(204).send();
    },
  };
}
